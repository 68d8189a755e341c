import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * The SHA-256 of a stream's bytes, lowercase hex, computed chunk by chunk as they arrive, so a
 * file of any size is hashed in constant memory. Web Crypto has no incremental digest (its
 * `digest` wants every byte at once), hence @noble/hashes (audited, no dependencies; a few KB).
 * `each` sees every chunk too, after it was hashed.
 */
export async function sha256OfStream(stream: ReadableStream<Uint8Array>, each?: (chunk: Uint8Array) => void): Promise<string> {
  const hash = sha256.create();
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    hash.update(value);
    each?.(value);
  }
  return bytesToHex(hash.digest());
}
