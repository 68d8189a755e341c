import { createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import { generateDeviceIdentity, keyFingerprint, signRegistrationProof } from '@svc/common';

/**
 * The runtime's Ed25519 identity: generated once, kept in the credentials file (PKCS#8,
 * base64url), its public half sent with the registration request, its signature proving on every
 * status poll that this runtime, not whoever learnt the request id, is the one asking. The
 * cryptography itself is libs/common's device-identity, the same code the server verifies with.
 */
export interface DeviceIdentity {
  privateKey: KeyObject;
  /** base64url (no padding) of the raw 32-byte public key: the `public_key` of POST /auth/device. */
  publicKey: string;
  /** What the approver sees: XXXX-XXXX-XXXX-XXXX. */
  fingerprint: string;
}

export function createIdentity(): { identity: DeviceIdentity; stored: string } {
  const stored = generateDeviceIdentity().privateKey;
  return { identity: loadIdentity(stored), stored };
}

export function loadIdentity(stored: string): DeviceIdentity {
  const privateKey = createPrivateKey({ key: Buffer.from(stored, 'base64url'), format: 'der', type: 'pkcs8' });
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the stored identity key is not an Ed25519 key');
  const publicKey = createPublicKey(privateKey).export({ format: 'jwk' }).x!;
  return { privateKey, publicKey, fingerprint: keyFingerprint(publicKey) };
}

/** `x-svc-signature` of a status poll at `timestamp` (unix seconds). */
export function signStatusPoll(identity: DeviceIdentity, requestId: string, timestamp: number): string {
  return signRegistrationProof(identity.privateKey, requestId, timestamp);
}
