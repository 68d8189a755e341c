import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import {
  checkPathText,
  checkRelativePath,
  FILE_LIMITS,
  FsDeleteArgs,
  FsManifestArgs,
  FsReadArgs,
  FsWriteArgs,
  InvalidInputError,
  isSha256,
  MAX_FILE_MODE,
} from '@svc/common';

/**
 * Validation of the `svc-args` of the file operations: anything off is INVALID_INPUT, refused
 * before the file system is touched. Device paths are absolute, or relative to the runtime's home
 * directory (`~` and `~/…` name it too; an empty path is the home itself).
 */
export function resolveDevicePath(raw: unknown, name = 'path'): string {
  const path = checkPathText(raw, name);
  const home = homedir();
  if (path === '' || path === '~') return home;
  if (path.startsWith('~/')) return resolve(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(home, path);
}

export function parseLsArgs(raw: Record<string, unknown>): { path: string } {
  const { path } = only(raw, ['path']);
  return { path: resolveDevicePath(path) };
}

export function parseReadArgs(raw: Record<string, unknown>): Required<Pick<FsReadArgs, 'path'>> & { within?: string } {
  const { path, within } = only(raw, ['path', 'within']);
  return { path: resolveDevicePath(path), within: within === undefined ? undefined : resolveDevicePath(within, 'within') };
}

export function parseWriteArgs(raw: Record<string, unknown>): FsWriteArgs {
  const { path, within, size, mode, mtime, sha256, name } = only(raw, ['path', 'within', 'size', 'mode', 'mtime', 'sha256', 'name']);
  if (!Number.isSafeInteger(size) || (size as number) < 0) throw new InvalidInputError('size must be a non-negative integer');
  if (mode !== undefined && (!Number.isInteger(mode) || (mode as number) < 0 || (mode as number) > MAX_FILE_MODE)) {
    throw new InvalidInputError('mode must be permission bits between 0 and 0o7777');
  }
  if (mtime !== undefined && (!Number.isSafeInteger(mtime) || (mtime as number) < 0)) throw new InvalidInputError('mtime must be milliseconds since the epoch');
  if (sha256 !== undefined && !isSha256(sha256)) throw new InvalidInputError('sha256 must be 64 lower-case hex digits');
  if (name !== undefined && (checkRelativePath(name).includes('/'))) throw new InvalidInputError('name must be a single file name');
  return {
    path: resolveDevicePath(path),
    within: within === undefined ? undefined : resolveDevicePath(within, 'within'),
    size: size as number,
    mode: mode as number | undefined,
    mtime: mtime as number | undefined,
    sha256: sha256 as string | undefined,
    name: name as string | undefined,
  };
}

export function parseManifestArgs(raw: Record<string, unknown>): Required<Pick<FsManifestArgs, 'path' | 'exclude'>> & { hash: boolean } {
  const { path, exclude, hash } = only(raw, ['path', 'exclude', 'hash']);
  if (exclude !== undefined && !Array.isArray(exclude)) throw new InvalidInputError('exclude must be an array of patterns');
  if (hash !== undefined && typeof hash !== 'boolean') throw new InvalidInputError('hash must be true or false');
  return { path: resolveDevicePath(path), exclude: (exclude ?? []) as string[], hash: hash === true };
}

export function parseDeleteArgs(raw: Record<string, unknown>): FsDeleteArgs {
  const { root, paths } = only(raw, ['root', 'paths']);
  if (!Array.isArray(paths) || paths.length === 0 || paths.length > FILE_LIMITS.maxDeletePaths) {
    throw new InvalidInputError(`paths must be an array of 1 to ${FILE_LIMITS.maxDeletePaths} relative paths`);
  }
  return { root: resolveDevicePath(root, 'root'), paths: paths.map((path) => checkRelativePath(path)) };
}

/** The named arguments; an unknown one is refused (a newer server sending what this runtime cannot honour). */
function only(raw: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const unknown = Object.keys(raw).filter((key) => !names.includes(key));
  if (unknown.length > 0) throw new InvalidInputError(`unknown argument ${unknown[0]}`);
  return raw;
}
