import { lstat, readlink, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InvalidInputError } from '../errors';
import type { SpecialFileType } from './file-contract';
import { fileSystemError } from './fs-errors';
import { requireInside } from './relative-path';

/** What /proc/<pid>/fd/<n> reads as for a pipe, a socket or an anonymous inode. */
const MAGIC_LINK = /^(pipe|socket|anon_inode):/;
/** As Linux's SYMLOOP_MAX: more links than this in a row is a loop. */
const MAX_LINK_HOPS = 40;

/**
 * Where a copy really writes, the same rule for the CLI's local side, the runtime and sync (docs/cli.md,
 * "cp and sync destinations"), as cp and scp behave:
 * - `file`: a regular file, or nothing yet. `path` is the destination with every symbolic link at its
 *   end followed (a dangling link included), so the temp file and the rename happen next to the link's
 *   target and the link itself survives.
 * - `special`: an existing character or block device, FIFO or socket (`/dev/stdout`, `/dev/null`, a
 *   named pipe). It is opened and written in place: never renamed over, never chmod'ed.
 * A directory is refused (EISDIR) before any byte is written.
 */
export type WriteDestination = { kind: 'file'; path: string } | { kind: 'special'; path: string; type: SpecialFileType };


export interface DestinationOptions {
  /** A sync root: the destination, links followed, must stay inside it (a link that leads out is refused). */
  within?: string;
}

export async function resolveWriteDestination(target: string, options: DestinationOptions = {}): Promise<WriteDestination> {
  const path = await followLinks(resolve(target));
  if (options.within !== undefined) {
    await requireInside(options.within, target);
    if (path !== resolve(target)) await requireInside(options.within, path);
  }
  const found = await stat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw fileSystemError(err, target);
  });
  if (!found || found.isFile()) return { kind: 'file', path };
  if (found.isDirectory()) throw fileSystemError(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), target);
  return { kind: 'special', path, type: specialType(found) };
}

/** The kind of a non-regular, non-directory file, for messages and for how it is opened. */
export function specialType(info: { isFIFO(): boolean; isSocket(): boolean; isBlockDevice(): boolean }): SpecialFileType {
  return info.isFIFO() ? 'fifo' : info.isSocket() ? 'socket' : info.isBlockDevice() ? 'block device' : 'character device';
}

/** Refuses to read anything but a regular file (a FIFO or device would block, or never end). */
export function notARegularFile(path: string, type: SpecialFileType): InvalidInputError {
  return new InvalidInputError(`Not a regular file: ${path} is a ${type}; cp reads regular files only (read it with "svc exec <device> -- cat ${path}")`);
}

/**
 * `path` with the symbolic links at its end followed, hop by hop (a link to a missing file
 * gives that file's path, which realpath cannot). Links in the parent directories stay: the
 * kernel follows them for the temp file and the rename alike.
 */
export async function followLinks(path: string): Promise<string> {
  let current = path;
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw fileSystemError(err, path);
    }
    if (!isLink) return current;
    let link: string;
    try {
      link = await readlink(current);
    } catch (err) {
      throw fileSystemError(err, path);
    }
    // /dev/stdout -> /proc/self/fd/1 -> "pipe:[123]": such a link names no path; what it leads to is opened through the link.
    if (MAGIC_LINK.test(link)) return current;
    current = resolve(dirname(current), link);
  }
  throw fileSystemError(Object.assign(new Error('loop'), { code: 'ELOOP' }), path);
}
