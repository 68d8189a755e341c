import {
  generateDeviceIdentity,
  isPublicKey,
  keyFingerprint,
  registrationProofMessage,
  signRegistrationProof,
  verifyRegistrationProof,
} from './device-identity';

/**
 * Fixed vectors (also in docs/protocol.md) so another implementation can check itself. The key is
 * RFC 8032's test 1 (secret 9d61b19d…7f60); Ed25519 signatures are deterministic.
 */
const VECTOR = {
  privateKey: 'MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v_VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g',
  publicKey: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  fingerprint: 'EH7D-DX5B-KSRG-CYTL',
  requestId: 'req_0123456789abcdef0123456789abcdef',
  timestamp: 1700000000,
  signature: 'U0XYarqEphOZ4uhs4XOAEzs00IvyYlAA83IbUwUA3n8cgUubCYrJU_Uq_ZMOqVMccm2T_wt_nU6omKNlDncpAg',
};

describe('device identity', () => {
  it('fingerprints the fixed key as the vector says', () => {
    expect(keyFingerprint(VECTOR.publicKey)).toBe(VECTOR.fingerprint);
  });

  it('builds the proof message byte for byte', () => {
    expect(registrationProofMessage(VECTOR.requestId, VECTOR.timestamp)).toBe('svc-registration-status\nreq_0123456789abcdef0123456789abcdef\n1700000000');
  });

  it('signs the fixed message with the fixed key to the fixed signature, and verifies it', () => {
    expect(signRegistrationProof(VECTOR.privateKey, VECTOR.requestId, VECTOR.timestamp)).toBe(VECTOR.signature);
    expect(verifyRegistrationProof(VECTOR.publicKey, VECTOR.requestId, VECTOR.timestamp, VECTOR.signature)).toBe(true);
  });

  it.each([
    ['another request id', VECTOR.publicKey, 'req_ffffffffffffffffffffffffffffffff', VECTOR.timestamp, VECTOR.signature],
    ['another timestamp', VECTOR.publicKey, VECTOR.requestId, VECTOR.timestamp + 1, VECTOR.signature],
    ['another key', generateDeviceIdentity().publicKey, VECTOR.requestId, VECTOR.timestamp, VECTOR.signature],
    ['a malformed signature', VECTOR.publicKey, VECTOR.requestId, VECTOR.timestamp, 'not-a-signature'],
    ['an empty signature', VECTOR.publicKey, VECTOR.requestId, VECTOR.timestamp, ''],
    ['a malformed key', 'short', VECTOR.requestId, VECTOR.timestamp, VECTOR.signature],
  ])('refuses %s', (_name, publicKey, requestId, timestamp, signature) => {
    expect(verifyRegistrationProof(publicKey, requestId, timestamp, signature)).toBe(false);
  });

  it('generates a usable identity whose signatures verify', () => {
    const identity = generateDeviceIdentity();
    expect(isPublicKey(identity.publicKey)).toBe(true);
    expect(keyFingerprint(identity.publicKey)).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    const signature = signRegistrationProof(identity.privateKey, 'req_x', 42);
    expect(verifyRegistrationProof(identity.publicKey, 'req_x', 42, signature)).toBe(true);
  });

  it.each([
    ['padding', `${VECTOR.publicKey}=`],
    ['31 bytes', Buffer.alloc(31).toString('base64url')],
    ['33 bytes', Buffer.alloc(33).toString('base64url')],
    ['standard base64 characters', VECTOR.publicKey.replace('_', '/')],
    ['a non-canonical last character', `${VECTOR.publicKey.slice(0, 42)}p`],
  ])('accepts only the canonical spelling of 32 bytes (not %s)', (_name, key) => {
    expect(isPublicKey(key)).toBe(false);
    expect(() => keyFingerprint(key)).toThrow(TypeError);
  });
});
