import { createHash } from 'node:crypto';
import { createReadStream, Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExcludeMatcher } from './exclude-rules';
import type { FileMetadata, ManifestEntry } from './file-contract';
import { MAX_FILE_MODE } from './file-contract';
import { fileSystemError } from './fs-errors';
import { specialType } from './write-destination';

export interface WalkOptions {
  exclude?: ExcludeMatcher;
  /** Compute every file's SHA-256 (reads every byte); off by default. */
  hash?: boolean;
}

/**
 * The recursive listing sync compares (`fs/manifest` on the device, the local side in the CLI):
 * directories and regular files under `root`, paths relative to it with `/` separators. Symbolic
 * links are not followed, and sockets, FIFOs and device files not read: each is listed marked
 * `skipped` with its type (and its own lstat metadata), so that a sync can say what it left alone.
 * Names containing a backslash (no portable relative path can carry one) are left out. Excluded
 * paths are not listed, excluded directories not descended into. Errors are domain errors naming
 * the path.
 */
export async function* walkTree(root: string, options: WalkOptions = {}): AsyncGenerator<ManifestEntry> {
  let top: Stats;
  try {
    top = await stat(root);
  } catch (err) {
    throw fileSystemError(err, root);
  }
  if (!top.isDirectory()) throw fileSystemError(Object.assign(new Error('not a directory'), { code: 'ENOTDIR' }), root);
  const pending: string[] = [''];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const absolute = dir === '' ? root : join(root, ...dir.split('/'));
    let entries;
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch (err) {
      if (vanished(err)) continue;
      throw fileSystemError(err, absolute);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      if (entry.name.includes('\\')) continue;
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      const isDir = entry.isDirectory();
      if (options.exclude?.(rel, isDir)) continue;
      const path = join(absolute, entry.name);
      let info: Stats;
      try {
        info = await lstat(path);
      } catch (err) {
        if (vanished(err)) continue;
        throw fileSystemError(err, path);
      }
      if (isDir) {
        subdirectories.push(rel);
        yield { path: rel, is_dir: true, ...metadataOf(info) };
      } else if (info.isFile()) {
        const fileEntry: ManifestEntry = { path: rel, is_dir: false, ...metadataOf(info) };
        if (options.hash) fileEntry.sha256 = await hashFile(path);
        yield fileEntry;
      } else {
        yield { path: rel, is_dir: false, ...metadataOf(info), skipped: info.isSymbolicLink() ? 'symbolic link' : specialType(info) };
      }
    }
    pending.push(...subdirectories.reverse());
  }
}

/** Size, permission bits and mtime (whole milliseconds) as the file operations carry them. */
export function metadataOf(info: Stats): FileMetadata {
  return { size: info.isDirectory() ? 0 : info.size, mode: info.mode & MAX_FILE_MODE, mtime: Math.round(info.mtimeMs) };
}

export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (err) {
    throw fileSystemError(err, path);
  }
  return hash.digest('hex');
}

/** A file removed while the tree is walked is simply not listed. */
function vanished(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}
