import type { ApiClient } from './client';

/**
 * A download checked against the device's own checksum. The download route sends its SHA-256 only
 * as an HTTP trailer, which `fetch` cannot read, so the checksum comes from the files manifest
 * route (`device_sync.manifest`, `hash: true`) on the file's directory, narrowed by exclude
 * patterns to that one file: no subdirectory is walked and no other file is hashed.
 */
export class ChecksumMismatchError extends Error {
  readonly code = 'CHECKSUM_MISMATCH';
  constructor(name: string, expected: string, actual: string) {
    super(`${name} was not saved: its bytes hash to sha256 ${actual}, but the device reports sha256 ${expected}`);
  }
}

/** The SHA-256 of the bytes, lowercase hex (Web Crypto: HTTPS or localhost only). */
export async function sha256Hex(bytes: Blob | ArrayBuffer): Promise<string> {
  const buffer = bytes instanceof ArrayBuffer ? bytes : await bytes.arrayBuffer();
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The bytes' SHA-256 if it equals `expected`; a ChecksumMismatchError otherwise. */
export async function verifySha256(name: string, bytes: Blob | ArrayBuffer, expected: string): Promise<string> {
  const actual = await sha256Hex(bytes);
  if (actual !== expected.toLowerCase()) throw new ChecksumMismatchError(name, expected, actual);
  return actual;
}

/** Exclude patterns (picomatch globs, docs/protocol.md "Files") leaving only the file `name` of a directory. */
export function onlyFilePatterns(name: string): string[] {
  const escaped = name.replace(/[^A-Za-z0-9_]/g, (c) => `\\${c}`);
  const others = `@(!(${escaped}))`;
  // A pattern over the route's length limit: hash the directory's files, still without descending.
  return others.length <= 1024 ? ['*/', others] : ['*/'];
}

/** The device's SHA-256 of `dir`/`name`, read from its manifest. */
export async function deviceSha256(api: ApiClient, device: string, dir: string, name: string): Promise<string> {
  let found: string | undefined;
  let failure: string | undefined;
  const route = `/devices/${encodeURIComponent(device)}/files/manifest`;
  await api.stream(route, { path: dir, hash: true, exclude: onlyFilePatterns(name) }, (line) => {
    if (line.path === name && line.is_dir === false && typeof line.sha256 === 'string') found = line.sha256;
    else if (line.code) failure = String(line.message ?? line.error ?? line.code);
  });
  if (found) return found;
  throw new Error(`The device gave no checksum for ${name}${failure ? `: ${failure}` : ''}; the file was not saved`);
}
