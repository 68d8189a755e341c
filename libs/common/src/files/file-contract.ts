import { InvalidInputError } from '../errors';
import type { DirectoryEntry } from '../operations/results';
import type { SKIPPED_FILE_TYPES } from '../operations/result-schemas';
import { FILE_LIMITS } from '../file-limits';

/**
 * The file operations' shared vocabulary (docs/protocol.md, "Files"): tunnel arguments of
 * `fs/ls`, `fs/read`, `fs/write`, `fs/manifest`, `fs/delete`, their answers, and the metadata
 * headers of the REST routes. Times are milliseconds since the epoch (integers), modes are the
 * permission bits (`mode & 0o7777`: integers in JSON, octal digits in headers, as chmod takes
 * them), checksums lower-case SHA-256 hex.
 */

/** device_ls entries: the tool's `{name, is_dir}` plus what a listing usually shows. */
export interface FileEntry extends DirectoryEntry {
  size: number;
  mode: number;
  mtime: number;
  is_symlink: boolean;
}

/** A symbolic link or special file, which sync leaves alone (SKIPPED_FILE_TYPES). */
export type SkippedFileType = (typeof SKIPPED_FILE_TYPES)[number];
/** A device, FIFO or socket: written in place, never read by a copy. */
export type SpecialFileType = Exclude<SkippedFileType, 'symbolic link'>;

/**
 * One entry of a recursive listing (`fs/manifest`): `path` is relative to the root, `/`-separated.
 * `skipped` marks a symbolic link or special file: listed so that a sync can say what it left alone.
 */
export interface ManifestEntry {
  path: string;
  is_dir: boolean;
  size: number;
  mode: number;
  mtime: number;
  sha256?: string;
  skipped?: SkippedFileType;
}

/** Metadata of a file's content, as `fs/read` answers and `fs/write` takes it. */
export interface FileMetadata {
  size: number;
  mode: number;
  mtime: number;
}

export interface FsPathArgs {
  path: string;
}

export interface FsReadArgs extends FsPathArgs {
  /** When set, `path` must resolve inside this directory (symbolic links included): sync uses it. */
  within?: string;
}

export interface FsWriteArgs extends FsReadArgs {
  size: number;
  mode?: number;
  mtime?: number;
  /** Expected checksum; when absent it must arrive as the request's `svc-sha256` trailer. */
  sha256?: string;
  /** When `path` is an existing directory, write into it under this name (`cp a.txt dev:/tmp`). */
  name?: string;
}

export interface FsManifestArgs extends FsPathArgs {
  exclude?: string[];
  /** Hash every file (sync's checksum comparison); off by default: size and mtime decide. */
  hash?: boolean;
}

export interface FsDeleteArgs {
  /** The sync root; nothing outside it is ever deleted. */
  root: string;
  /** Paths relative to `root`. Directories go with their content. */
  paths: string[];
}

/** `fs/write`'s answer body after the data: what was written, or why nothing was. */
export type FsWriteOutcome = { path: string; size: number; sha256: string } | { code: string; message: string };

export interface FsDeleteResult {
  deleted: number;
}

/** Tunnel response headers and trailers of `fs/read` (and the `svc-sha256` request trailer of `fs/write`). */
export const FILE_TUNNEL_HEADERS = {
  size: 'svc-size',
  mode: 'svc-mode',
  mtime: 'svc-mtime',
  sha256: 'svc-sha256',
} as const;

/** The same metadata on the REST routes (`/devices/:device/files/content`). */
export const FILE_HTTP_HEADERS = {
  size: 'x-svc-size',
  mode: 'x-svc-mode',
  mtime: 'x-svc-mtime',
  sha256: 'x-svc-sha256',
  /**
   * `1` on a manifest request: also list the entries marked `skipped` (links, special files). A
   * header, not a parameter, so that a client that sends it still works with a server that does
   * not know it (which ignores it), and a client that does not is never sent entries it would
   * take for files.
   */
  listSkipped: 'x-svc-list-skipped',
} as const;

export { FILE_LIMITS } from '../file-limits';

const SHA256 = /^[0-9a-f]{64}$/;

/** Validates a path argument: text, no NUL, at most 4096 bytes. Empty means the home directory. */
export function checkPathText(path: unknown, name = 'path'): string {
  if (typeof path !== 'string') throw new InvalidInputError(`${name} must be a string`);
  if (path.includes('\0')) throw new InvalidInputError(`${name} must not contain NUL characters`);
  if (Buffer.byteLength(path, 'utf8') > FILE_LIMITS.maxPathBytes) throw new InvalidInputError(`${name} is longer than ${FILE_LIMITS.maxPathBytes} bytes`);
  return path;
}

export function isSha256(value: unknown): value is string {
  return typeof value === 'string' && SHA256.test(value);
}

/** Parses a size or mtime header (decimal digits); undefined when absent. */
export function parseIntegerHeader(value: string | string[] | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidInputError(`${name} must be a non-negative decimal integer`);
  }
  return Number(value);
}

/** Parses a mode header: octal permission bits as chmod takes them (`644`, `0755`, `4755`). */
export function parseModeHeader(value: string | string[] | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^0?[0-7]{1,4}$/.test(value)) throw new InvalidInputError(`${name} must be octal permission bits such as 644`);
  return parseInt(value, 8);
}

export function formatModeHeader(mode: number): string {
  return (mode & MAX_FILE_MODE).toString(8).padStart(4, '0');
}

/** Mode bits a transfer carries and accepts: permissions plus setuid, setgid and sticky. */
export const MAX_FILE_MODE = 0o7777;
/**
 * The mode bits a copy gives the file it writes: the permissions only. Setuid, setgid and sticky
 * are dropped, as cp does without -p, so that neither a device nor a user plants a setuid binary
 * on the other side (docs/cli.md, "Files").
 */
export const WRITTEN_FILE_MODE = 0o777;
