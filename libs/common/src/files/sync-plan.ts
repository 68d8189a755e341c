import { ConflictError, InvalidInputError } from '../errors';
import type { ManifestEntry, SkippedFileType } from './file-contract';
import { checkRelativePath } from './relative-path';

/** What a sync does (and what `dry_run` reports): paths relative to the roots, sorted. */
export interface SyncPlan {
  /** Files to copy from source to destination. */
  copy: string[];
  /** Destination entries to remove (a directory goes with its content; its content is not listed again). */
  delete: string[];
  /** Files already equal on both sides. */
  unchanged: number;
  /** Only when there are any: the source's symbolic links and special files, neither copied nor deleted. */
  skipped?: { path: string; type: SkippedFileType }[];
}

export interface SyncPlanOptions {
  /** Remove destination entries that are not in the source (and replace entries of the other type). */
  delete: boolean;
  /** Compare content by SHA-256 (manifests hashed) instead of mtime; sizes are compared either way. */
  checksum?: boolean;
}

/**
 * Compares two manifests (already filtered by the exclude patterns, so excluded paths are never
 * copied or deleted). A file is unchanged when size and mtime match (or, with `checksum`, size
 * and SHA-256), as rsync's quick check: nothing is hashed unless asked for. Entries marked
 * `skipped` (links, special files) take no part on either side, as if absent: the source's are
 * reported. Every path is checked first, since a manifest comes from the other side and may try
 * to leave the root (`../x`).
 */
export function planSync(source: Iterable<ManifestEntry>, dest: Iterable<ManifestEntry>, options: SyncPlanOptions): SyncPlan {
  const sourceEntries = indexEntries(source, 'source');
  const destEntries = indexEntries(dest, 'destination');
  const skipped = [...sourceEntries.values()].flatMap((entry) => (entry.skipped ? [{ path: entry.path, type: entry.skipped }] : []));
  for (const entries of [sourceEntries, destEntries]) for (const [path, entry] of entries) if (entry.skipped) entries.delete(path);
  const copy: string[] = [];
  const remove = new Set<string>();
  let unchanged = 0;

  for (const entry of sourceEntries.values()) {
    const existing = destEntries.get(entry.path);
    if (existing && existing.is_dir !== entry.is_dir) {
      if (!options.delete) {
        const [there, here] = existing.is_dir ? ['a directory', 'a file'] : ['a file', 'a directory'];
        throw new ConflictError(`${entry.path} is ${there} in the destination but ${here} in the source; sync with delete replaces it`);
      }
      remove.add(entry.path);
    }
    if (entry.is_dir) continue;
    if (existing && !existing.is_dir && sameContent(entry, existing, options.checksum === true)) unchanged += 1;
    else copy.push(entry.path);
  }
  if (options.delete) {
    for (const path of destEntries.keys()) if (!sourceEntries.has(path)) remove.add(path);
  }
  return { copy: copy.sort(), delete: outermost(remove), unchanged, ...(skipped.length > 0 ? { skipped: skipped.sort((a, b) => (a.path < b.path ? -1 : 1)) } : {}) };
}

function indexEntries(entries: Iterable<ManifestEntry>, side: string): Map<string, ManifestEntry> {
  const index = new Map<string, ManifestEntry>();
  for (const entry of entries) {
    try {
      checkRelativePath(entry.path);
    } catch (err) {
      throw new InvalidInputError(`Refused the ${side} listing: ${(err as Error).message}`);
    }
    index.set(entry.path, entry);
  }
  return index;
}

function sameContent(a: ManifestEntry, b: ManifestEntry, checksum: boolean): boolean {
  if (a.size !== b.size) return false;
  return checksum ? a.sha256 !== undefined && a.sha256 === b.sha256 : a.mtime === b.mtime;
}

/** Drops paths below another removed path: removing the directory removes them. */
function outermost(paths: Set<string>): string[] {
  return [...paths].sort().filter((path) => {
    for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
      if (paths.has(path.slice(0, cut))) return false;
    }
    return true;
  });
}
