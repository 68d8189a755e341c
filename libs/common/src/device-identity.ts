/**
 * The registration handshake's cryptography, shared by the server and the runtime (node:crypto
 * only, so a device pulls nothing else). A runtime holds an Ed25519 key pair; its public half goes
 * with the registration request, and every status poll carries a signature proving the poller
 * holds the private half. The fingerprint is what the approver compares with the device's screen.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign, verify } from 'node:crypto';

/** base64url (no padding) of exactly 32 bytes. */
const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** base64url (no padding) of exactly 64 bytes. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{86}$/;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export const REGISTRATION_PROOF_HEADERS = { timestamp: 'x-svc-timestamp', signature: 'x-svc-signature' } as const;
/** How far (seconds, either way) a proof's timestamp may be from the server's clock. */
export const REGISTRATION_PROOF_MAX_SKEW_SECONDS = 300;

export interface DeviceIdentityKeys {
  /** base64url (no padding) of the raw 32-byte Ed25519 public key. */
  publicKey: string;
  /** PKCS#8 DER, base64url (no padding). */
  privateKey: string;
}

export function generateDeviceIdentity(): DeviceIdentityKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: rawPublicKey(publicKey).toString('base64url'),
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url'),
  };
}

/**
 * True for the canonical base64url spelling of 32 bytes, so one key has exactly one spelling
 * (and one fingerprint, one binding to a device id).
 */
export function isPublicKey(value: unknown): value is string {
  return typeof value === 'string' && PUBLIC_KEY_PATTERN.test(value) && Buffer.from(value, 'base64url').toString('base64url') === value;
}

/** SHA-256 of the raw public key, RFC 4648 base32, first 16 characters as XXXX-XXXX-XXXX-XXXX. */
export function keyFingerprint(publicKey: string): string {
  if (!isPublicKey(publicKey)) throw new TypeError('public key must be base64url of 32 bytes');
  const digest = createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest();
  // 16 base32 characters are 80 bits: the first 10 bytes of the digest.
  let chars = '';
  let bits = 0;
  let value = 0;
  for (const byte of digest.subarray(0, 10)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      chars += BASE32[(value >> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return chars.match(/.{4}/g)!.join('-');
}

/** The UTF-8 bytes a status poll signs. */
export function registrationProofMessage(requestId: string, timestamp: number): string {
  return `svc-registration-status\n${requestId}\n${timestamp}`;
}

/** `x-svc-signature` for a poll of `requestId` at `timestamp` (integer unix seconds). */
export function signRegistrationProof(privateKey: string | KeyObject, requestId: string, timestamp: number): string {
  const key = typeof privateKey === 'string' ? createPrivateKey({ key: Buffer.from(privateKey, 'base64url'), format: 'der', type: 'pkcs8' }) : privateKey;
  return sign(null, Buffer.from(registrationProofMessage(requestId, timestamp), 'utf8'), key).toString('base64url');
}

/** Whether `signature` is `publicKey`'s signature of the proof message; false (never a throw) for malformed input. */
export function verifyRegistrationProof(publicKey: string, requestId: string, timestamp: number, signature: string): boolean {
  if (!isPublicKey(publicKey) || typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature)) return false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
    return verify(null, Buffer.from(registrationProofMessage(requestId, timestamp), 'utf8'), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
}
