import { InvalidInputError } from '../errors';
import { FILE_LIMITS } from './file-contract';

/** picomatch ships no type declarations; this is the one call made of it. */
type Picomatch = (pattern: string, options: { dot: boolean; basename: boolean }) => (path: string) => boolean;
const picomatch: Picomatch = require('picomatch');

/**
 * `exclude` patterns of device_sync, gitignore-like (docs/protocol.md, "Files"):
 * - matched against the path relative to the sync root, `/`-separated, with picomatch globs
 *   (`*`, `?`, `[...]`, `{a,b}`, `**` across directories; `*` also matches dot files);
 * - a pattern without `/` matches a name at any depth (`*.log`, `node_modules`);
 * - a pattern with a `/` is anchored at the root (`build/out`; a leading `/` only anchors);
 * - a trailing `/` matches directories only (`cache/`);
 * - an excluded directory is skipped with everything below it;
 * - negation (`!pattern`) is not supported.
 * Excluded paths are left alone on both sides: never copied, never deleted.
 */
export type ExcludeMatcher = (rel: string, isDir: boolean) => boolean;

export function compileExcludes(patterns: readonly unknown[] = []): ExcludeMatcher {
  if (patterns.length > FILE_LIMITS.maxExcludePatterns) throw new InvalidInputError(`At most ${FILE_LIMITS.maxExcludePatterns} exclude patterns`);
  const rules = patterns.map(compileOne);
  if (rules.length === 0) return () => false;
  return (rel, isDir) => rules.some((rule) => (isDir || !rule.dirOnly) && rule.test(rel));
}

function compileOne(pattern: unknown): { dirOnly: boolean; test: (rel: string) => boolean } {
  if (typeof pattern !== 'string' || pattern.trim() === '' || pattern.length > FILE_LIMITS.maxPatternLength || pattern.includes('\0')) {
    throw new InvalidInputError(`An exclude pattern must be a non-empty string of at most ${FILE_LIMITS.maxPatternLength} characters`);
  }
  if (pattern.startsWith('!')) throw new InvalidInputError(`Negated exclude patterns are not supported: ${pattern}`);
  const dirOnly = pattern.endsWith('/');
  const body = pattern.replace(/\/+$/, '');
  const anchored = body.includes('/');
  const glob = body.replace(/^\/+/, '');
  if (glob === '') throw new InvalidInputError(`Exclude pattern matches the root itself: ${pattern}`);
  return { dirOnly, test: picomatch(glob, { dot: true, basename: !anchored }) };
}
