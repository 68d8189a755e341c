import { Dirent, Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_LIMITS, FileEntry, fileSystemError, InvalidInputError, metadataOf } from '@svc/common';
import type { StreamContext } from '../tunnel/stream-router';
import { parseLsArgs } from './fs-args';
import { writeAnswer } from './answer-writer';
import type { OperationStream } from '../tunnel/operation-stream';

/** Entries are looked at this many at a time: a big directory neither waits on one stat after another nor opens thousands at once. */
const STAT_CONCURRENCY = 32;

/**
 * `/v1/fs/ls {path}`: the directory's entries sorted by name, `[{name, is_dir, size, mode, mtime,
 * is_symlink}]`. A symbolic link is described by its target (a link to a directory is a
 * directory), or by itself when the target is missing. Written with flow control (writeAnswer);
 * a directory whose listing would pass FILE_LIMITS.maxListingBytes is refused.
 */
export async function handleFsLs(stream: OperationStream, rawArgs: Record<string, unknown>, _context: StreamContext): Promise<void> {
  const { path } = parseLsArgs(rawArgs);
  let names: Dirent[];
  try {
    names = await readdir(path, { withFileTypes: true });
  } catch (err) {
    throw fileSystemError(err, path);
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries: FileEntry[] = new Array(names.length);
  for (let start = 0; start < names.length; start += STAT_CONCURRENCY) {
    await Promise.all(names.slice(start, start + STAT_CONCURRENCY).map(async (dirent, offset) => {
      entries[start + offset] = await describe(join(path, dirent.name), dirent);
    }));
  }
  const answer = Buffer.from(JSON.stringify(entries), 'utf8');
  if (answer.length > FILE_LIMITS.maxListingBytes) {
    throw new InvalidInputError(`${path} has too many entries to list (${names.length}: more than the ${FILE_LIMITS.maxListingBytes / 1024 / 1024} MiB a listing may take)`);
  }
  stream.respond({ ':status': 200, 'content-type': 'application/json' });
  await writeAnswer(stream, answer);
}

async function describe(path: string, dirent: Dirent): Promise<FileEntry> {
  const isSymlink = dirent.isSymbolicLink();
  let info: Stats | undefined;
  try {
    info = isSymlink ? await stat(path).catch(() => lstat(path)) : await lstat(path);
  } catch {
    // Removed since the directory was read: listed with what readdir knew.
  }
  const metadata = info ? metadataOf(info) : { size: 0, mode: 0, mtime: 0 };
  return { name: dirent.name, is_dir: info ? info.isDirectory() : dirent.isDirectory(), ...metadata, is_symlink: isSymlink };
}
