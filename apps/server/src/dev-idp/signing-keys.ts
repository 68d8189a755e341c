import { createHash, generateKeyPairSync, JsonWebKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A private JSON Web Key as oidc-provider's `jwks` option and the test fixtures expect it. */
export type PrivateJwk = JsonWebKey & { kty: string; kid: string; alg: string; use: 'sig' };

export interface SigningKeySet {
  keys: PrivateJwk[];
}

/**
 * Reads the provider's private signing keys from `keysFile`, creating them on first use. Keeping
 * them on disk means access tokens stay verifiable after the provider restarts.
 */
export function loadOrCreateSigningKeys(keysFile: string): SigningKeySet {
  if (existsSync(keysFile)) return readKeySet(keysFile);
  const keySet: SigningKeySet = { keys: [generateKey('RS256'), generateKey('ES256')] };
  mkdirSync(dirname(keysFile), { recursive: true, mode: 0o700 });
  const temporary = `${keysFile}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(keySet, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, keysFile);
  return keySet;
}

function readKeySet(keysFile: string): SigningKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(keysFile, 'utf8'));
  } catch (error) {
    throw new Error(`Development identity provider: cannot read signing keys from ${keysFile}: ${(error as Error).message}`);
  }
  const keys = (parsed as Partial<SigningKeySet>)?.keys;
  const usable = Array.isArray(keys) && keys.some((k) => k?.kty === 'RSA' && typeof k.d === 'string' && typeof k.kid === 'string');
  if (!usable) {
    throw new Error(`Development identity provider: ${keysFile} holds no private RSA signing key; delete the file to generate new keys`);
  }
  // Private keys: tighten permissions even if someone loosened them.
  chmodSync(keysFile, 0o600);
  return { keys: keys as PrivateJwk[] };
}

function generateKey(alg: 'RS256' | 'ES256'): PrivateJwk {
  const { privateKey } =
    alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kty: jwk.kty!, kid: thumbprint(jwk), alg, use: 'sig' };
}

/** RFC 7638 thumbprint: a stable, content-derived key id. */
function thumbprint(jwk: JsonWebKey): string {
  const members = jwk.kty === 'RSA' ? { e: jwk.e, kty: jwk.kty, n: jwk.n } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
