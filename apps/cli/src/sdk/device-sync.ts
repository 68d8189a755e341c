import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  compileExcludes,
  DomainError,
  ErrorCode,
  FILE_LIMITS,
  FileLocation,
  fileSystemError,
  InvalidInputError,
  joinRelative,
  ManifestEntry,
  planSync,
  requireInside,
  SyncPlan,
  walkTree,
} from '@svc/common';
import type { FilesHttp } from './files-http';
import type { TransferOptions } from './progress-stream';


/** Extra query of a transfer that is part of a sync: confinement to its root and its audit id. */
export interface SyncScope {
  within: string;
  sync: string;
}

/** What a sync needs of DeviceFiles (which calls syncTrees; this keeps the two files out of a cycle). */
export interface SyncTransport {
  readonly http: FilesHttp;
  upload(localPath: string, device: string, remotePath: string, scope?: SyncScope, transfer?: TransferOptions): Promise<void>;
  download(device: string, remotePath: string, localPath: string, scope?: SyncScope & { localRoot: string }, transfer?: TransferOptions): Promise<void>;
}

export interface SyncOptions {
  /** Remove destination entries the source does not have (excluded paths are never removed). */
  delete?: boolean;
  /** Report the plan and change nothing. */
  dry_run?: boolean;
  /** gitignore-like patterns (docs/protocol.md, "Files"), skipped on both sides. */
  exclude?: string[];
}

export interface SyncReport extends SyncPlan {
  status: 'synced';
  dry_run: boolean;
}

/** One side of a sync: its tree, and how to remove entries from it. */
interface SyncSide {
  manifest(): Promise<ManifestEntry[]>;
  remove(paths: string[]): Promise<void>;
}

/**
 * device_sync: lists both trees (the device's through `POST …/files/manifest`, filtered there by
 * the same exclude rules), plans with planSync (size + mtime quick check), then removes what
 * `delete` asks for and copies what differs, file by file through the atomic copies of device_cp
 * (each confined to the roots on both sides). One side is local, the other a device. A missing
 * destination is an empty one; it is created by the first copy. With `dry_run` only the plan is
 * returned.
 */
export async function syncTrees(files: SyncTransport, source: FileLocation, dest: FileLocation, options: SyncOptions & TransferOptions): Promise<SyncReport> {
  if (source.kind === dest.kind) throw new InvalidInputError('device_sync copies between this machine and a device: write one side as <device>:<path>');
  const exclude = options.exclude ?? [];
  compileExcludes(exclude); // refuses bad patterns before anything is listed
  const syncId = randomBytes(8).toString('hex');
  const [from, to] = [sideOf(files, source, exclude, syncId), sideOf(files, dest, exclude, syncId)];
  const sourceEntries = await from.manifest();
  const plan = planSync(sourceEntries, await emptyIfMissing(to.manifest()), { delete: options.delete === true });
  const report: SyncReport = { status: 'synced', dry_run: options.dry_run === true, ...plan };
  if (report.dry_run) return report;

  if (plan.delete.length > 0) await to.remove(plan.delete);
  const progress = overallProgress(sourceEntries, plan.copy, options.onProgress);
  for (const rel of plan.copy) {
    const transfer = progress.nextFile();
    if (source.kind === 'local' && dest.kind === 'device') {
      await files.upload(joinRelative(source.path, rel), dest.device, devicePath(dest.path, rel), { within: dest.path, sync: syncId }, transfer);
    } else if (source.kind === 'device' && dest.kind === 'local') {
      await files.download(source.device, devicePath(source.path, rel), joinRelative(dest.path, rel), { within: source.path, sync: syncId, localRoot: dest.path }, transfer);
    }
  }
  const device = source.kind === 'device' ? source.device : (dest as { device: string }).device;
  await files.http.json('device_sync.sync_end', device, {}, { sync: syncId });
  return report;
}

function sideOf(files: SyncTransport, location: FileLocation, exclude: string[], syncId: string): SyncSide {
  if (location.kind === 'local') {
    const root = location.path;
    return {
      manifest: async () => collect(walkTree(root, { exclude: compileExcludes(exclude) })),
      remove: async (paths) => {
        for (const rel of paths) {
          const target = joinRelative(root, rel);
          await requireInside(root, target);
          await rm(target, { recursive: true, force: true }).catch((err: unknown) => {
            throw fileSystemError(err, target);
          });
        }
      },
    };
  }
  const { device, path: root } = location;
  return {
    manifest: async () => readManifest(await files.http.manifest(device, { path: root, exclude })),
    remove: async (paths) => {
      for (let start = 0; start < paths.length; start += FILE_LIMITS.maxDeletePaths) {
        await files.http.json('device_sync.delete', device, {}, { root, paths: paths.slice(start, start + FILE_LIMITS.maxDeletePaths), sync: syncId });
      }
    },
  };
}

/**
 * Turns the progress of each copy into the progress of the whole sync: bytes of the files done so
 * far plus those of the current one, out of the listed sizes of every file to copy.
 */
function overallProgress(entries: ManifestEntry[], copy: string[], onProgress: TransferOptions['onProgress']): { nextFile(): TransferOptions } {
  const sizes = new Map(entries.map((entry) => [entry.path, entry.size]));
  const total = copy.reduce((sum, rel) => sum + (sizes.get(rel) ?? 0), 0);
  let finished = 0;
  let current = 0;
  return {
    nextFile: () => {
      finished += current;
      current = 0;
      if (!onProgress) return {};
      return {
        onProgress: (done) => {
          current = done;
          onProgress(finished + done, total);
        },
      };
    },
  };
}

/** A device path below a sync root; device paths are POSIX, an empty root is the runtime's home. */
function devicePath(root: string, rel: string): string {
  return root === '' ? rel : `${root.replace(/\/+$/, '')}/${rel}`;
}

/** The NDJSON tree listing; a final `{error, code}` line (a failure mid-walk) is thrown. */
async function readManifest(body: NodeJS.ReadableStream): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  for await (const line of createInterface({ input: body, crlfDelay: Infinity })) {
    if (line.length === 0) continue;
    const value = JSON.parse(line) as ManifestEntry | { error: string; code: ErrorCode };
    if ('error' in value) throw new DomainError(value.code, value.error);
    entries.push(value);
  }
  return entries;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function emptyIfMissing(listing: Promise<ManifestEntry[]>): Promise<ManifestEntry[]> {
  try {
    return await listing;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return [];
    throw err;
  }
}
