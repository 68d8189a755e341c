import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ForbiddenError, InvalidInputError } from '../errors';
import { FILE_LIMITS } from './file-contract';

/**
 * Paths inside a sync root. A manifest entry or a delete request names files relative to the root
 * with `/` separators; whoever produced it (a device, a client) is not trusted to stay inside, so
 * every consumer checks each path here before touching anything.
 */
export function checkRelativePath(rel: unknown): string {
  if (typeof rel !== 'string' || rel.length === 0) throw new InvalidInputError('A relative path must be a non-empty string');
  if (rel.includes('\0')) throw new InvalidInputError('A relative path must not contain NUL characters');
  if (Buffer.byteLength(rel, 'utf8') > FILE_LIMITS.maxPathBytes) throw new InvalidInputError(`Relative path is longer than ${FILE_LIMITS.maxPathBytes} bytes`);
  if (rel.startsWith('/') || rel.includes('\\') || /^[A-Za-z]:/.test(rel)) throw new InvalidInputError(`Not a relative path: ${rel}`);
  if (rel.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new InvalidInputError(`Relative path must not contain empty, "." or ".." segments: ${rel}`);
  }
  return rel;
}

/** `root` + a checked relative path, in the platform's separators. */
export function joinRelative(root: string, rel: string): string {
  return join(root, ...checkRelativePath(rel).split('/'));
}

/** Lexically inside (or equal to) `root`; both absolute. */
export function isLexicallyInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Refuses `path` unless it stays inside `root` once symbolic links are followed: its nearest
 * existing ancestor (the path itself excluded: a link there is replaced or removed, never
 * followed) must resolve inside the resolved root. Guards sync against a link in the tree that
 * points elsewhere.
 */
export async function requireInside(root: string, path: string): Promise<void> {
  const refusal = new ForbiddenError(`Refused: ${path} is outside ${root}`);
  const absoluteRoot = resolve(root);
  if (!isLexicallyInside(absoluteRoot, path) || resolve(path) === absoluteRoot) throw refusal;
  const realRoot = await realpath(absoluteRoot).catch(() => absoluteRoot);
  const prefix = realRoot.endsWith(sep) ? realRoot : realRoot + sep;
  // Up to (not including) the root, which is the caller's own choice and may not exist yet.
  for (let ancestor = dirname(resolve(path)); ancestor !== absoluteRoot; ancestor = dirname(ancestor)) {
    let real: string;
    try {
      real = await realpath(ancestor);
    } catch {
      continue; // not there yet: created inside its (checked) parent
    }
    if (!real.startsWith(prefix)) throw refusal;
    return;
  }
}
