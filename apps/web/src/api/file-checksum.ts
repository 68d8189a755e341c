/**
 * A download checked against the device's own checksum (deviceSha256 in ./files reads it). No
 * import here: test/web-file-checksum.spec.ts loads this file as it is.
 */
export class ChecksumMismatchError extends Error {
  readonly code = 'CHECKSUM_MISMATCH';
  constructor(name: string, expected: string, actual: string) {
    super(`${name} was not saved: its bytes hash to sha256 ${actual}, but the device reports sha256 ${expected}`);
  }
}

/** `actual` (the bytes' SHA-256, lowercase hex) if it equals `expected`; a ChecksumMismatchError otherwise. */
export function verifySha256(name: string, actual: string, expected: string): string {
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
