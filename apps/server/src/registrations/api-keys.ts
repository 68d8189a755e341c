import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'svc_';

/** A device API key: 256 random bits, prefixed so that scanners and log redaction recognise it. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Keys carry 256 bits of entropy, so a single SHA-256 is enough to make the stored hash useless
 * to an attacker (no dictionary to try); lookups by hash stay a plain indexed equality.
 */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/**
 * Between approval and the runtime's next poll the minted key must wait somewhere every server
 * replica can read. It waits encrypted (AES-256-GCM, key derived from the server secret and the
 * request id), so a copy of the database alone does not reveal it, and is erased on delivery.
 */
export function sealApiKey(apiKey: string, serverSecret: Buffer, requestId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(serverSecret, requestId), iv);
  const ciphertext = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url')).join('.');
}

export function unsealApiKey(sealed: string, serverSecret: Buffer, requestId: string): string {
  const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(serverSecret, requestId), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}

function sealingKey(serverSecret: Buffer, requestId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', serverSecret, requestId, 'svc pending device api key', 32));
}
