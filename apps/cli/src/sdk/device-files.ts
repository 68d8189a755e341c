import { open, stat } from 'node:fs/promises';
import { basename, join, posix, sep } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  DeviceLostError,
  DigestTap,
  FILE_IO_CHUNK_BYTES,
  DomainError,
  FileEntry,
  fileSystemError,
  FileLocation,
  InvalidInputError,
  isNotADirectory,
  metadataOf,
  notARegularFile,
  NotFoundError,
  openFileWriter,
  parseDevicePath,
  parseFileLocation,
  specialType,
} from '@svc/common';
import { deviceLost, FilesHttp, FilesHttpOptions } from './files-http';
import { interruptCleanup } from './interrupt-cleanup';
import { ownOutputStream, spoolToTempFile, StandardStreams, STDIO_PATH, writeToStream } from './stdio-transfer';
import { SyncOptions, SyncReport, SyncScope, syncTrees } from './device-sync';
import { reportingProgress, TransferOptions } from './progress-stream';

/**
 * device_ls, device_cp and device_sync for the CLI and `svc mcp` (docs/protocol.md, "Files").
 * Paths are local or `<device>:<path>` (parseFileLocation). Copies stream in both directions,
 * keep the mode and mtime, are checked end to end by SHA-256 (computed where the bytes are read,
 * verified where they are written), and replace the target atomically: a temp file renamed over
 * it, on the device and locally alike, so an interrupted copy leaves the old file as it was. The
 * destination rule is openFileWriter's: links are written through, devices and FIFOs in place.
 */
export class DeviceFiles {
  readonly http: FilesHttp;

  constructor(options: FilesHttpOptions) {
    this.http = new FilesHttp(options);
  }

  /**
   * device_ls: the entries of a directory on a device, `[{name, is_dir, size, mode, mtime,
   * is_symlink}]`; for a file, as `ls` does, that file alone (named as given), its entry from
   * its directory's listing.
   */
  async ls(spec: string): Promise<FileEntry[]> {
    const { device, path } = parseDevicePath(spec);
    try {
      return await this.listing(device, path);
    } catch (err) {
      // "file/" stays "Not a directory", as with ls.
      if (!isNotADirectory(err) || path.endsWith('/')) throw err;
      const siblings = await this.listing(device, posix.dirname(path)).catch(() => []);
      const entry = siblings.find((sibling) => sibling.name === posix.basename(path));
      if (!entry) throw err;
      return [{ ...entry, name: path }];
    }
  }

  private async listing(device: string, path: string): Promise<FileEntry[]> {
    let entries: unknown;
    try {
      entries = await this.http.json<unknown>('device_ls.list', device, { path });
    } catch (err) {
      // The server relays the listing as the device sends it: a body cut short is the device (or its tunnel) gone.
      if (err instanceof DomainError) throw err;
      throw new DeviceLostError(device, `the listing of ${path}`);
    }
    if (!Array.isArray(entries)) throw new DomainError('INTERNAL', `Device ${device} answered the listing of ${path} with something else than a list`);
    return entries as FileEntry[];
  }

  /**
   * device_cp: a file from the machine to a device, back, or between two devices. A directory
   * target receives the file under its name; a target ending in "/" must be an existing directory. With `stdio` (the svc command, not MCP), `-` as the
   * source is stdin and as the destination stdout.
   */
  async cp(source: string, dest: string, transfer: TransferOptions & { stdio?: StandardStreams } = {}): Promise<{ status: 'copied' }> {
    const from = parseFileLocation(source);
    const to = parseFileLocation(dest);
    const stdio = transfer.stdio;
    if ((from.kind === 'local' && from.path === STDIO_PATH) || (to.kind === 'local' && to.path === STDIO_PATH)) {
      if (!stdio) throw new InvalidInputError('"-" (stdin or stdout) can only be used with the svc cp command');
    }
    if (to.kind === 'device' && namesDirectory(to.path)) await this.requireDeviceDirectory(to.device, to.path);
    if (from.kind === 'local' && to.kind === 'device') {
      if (from.path === STDIO_PATH) await spoolToTempFile(stdio!.stdin, (spooled) => this.upload(spooled, to.device, to.path, undefined, transfer, 'stdin'));
      else await this.upload(from.path, to.device, to.path, undefined, transfer);
    } else if (from.kind === 'device' && to.kind === 'local') {
      const own = to.path === STDIO_PATH ? 'stdout' : await ownOutputStream(to.path);
      if (own && !stdio) throw new InvalidInputError(`${to.path} is this process's ${own}, which only the svc cp command can write to`);
      if (own) await this.downloadToStream(from.device, from.path, own === 'stdout' ? stdio!.stdout : stdio!.stderr, transfer);
      else await this.download(from.device, from.path, to.path, undefined, transfer);
    } else if (from.kind === 'device' && to.kind === 'device') await this.copyBetweenDevices(from, to, transfer);
    else throw new InvalidInputError('device_cp copies to or from a device: write one side as <device>:<path>');
    return { status: 'copied' };
  }

  /** device_sync: makes `dest` (a directory) hold what `source` holds; see syncTrees. */
  sync(source: string, dest: string, options: SyncOptions & TransferOptions = {}): Promise<SyncReport> {
    return syncTrees(this, parseFileLocation(source), parseFileLocation(dest), options);
  }

  /**
   * Streams a local file to `remotePath` (into it, under the file's name, when it is a directory
   * there; not so within a sync, whose paths are exact).
   */
  async upload(localPath: string, device: string, remotePath: string, scope?: SyncScope, transfer: TransferOptions = {}, name = basename(localPath)): Promise<void> {
    let handle;
    let source: Readable | undefined;
    try {
      handle = await open(localPath, 'r');
    } catch (err) {
      throw fileSystemError(err, localPath);
    }
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new InvalidInputError(`Not a regular file: ${localPath} is a directory (use svc sync for directories)`);
      if (!info.isFile()) throw notARegularFile(localPath, specialType(info));
      const meta = metadataOf(info);
      const tap = new DigestTap(meta.size);
      source = meta.size === 0 ? Readable.from([]) : handle.createReadStream({ start: 0, end: meta.size - 1, highWaterMark: FILE_IO_CHUNK_BYTES });
      const query: Record<string, string> = scope ? { path: remotePath, ...scope } : { path: remotePath, name };
      const data = reportingProgress(source.pipe(tap), meta.size, transfer.onProgress);
      const written = await this.http.upload(device, query, meta, data, () => tap.digest());
      if (written.sha256 !== tap.digest() || written.size !== meta.size) {
        throw new DomainError('INTERNAL', `The device wrote ${written.size} bytes with sha256 ${written.sha256}, but ${meta.size} bytes with sha256 ${tap.digest()} were sent`);
      }
    } finally {
      source?.destroy(); // a read stream holds the handle until it is destroyed or has ended
      await handle.close().catch(() => undefined);
    }
  }

  /** Streams a device file into `localPath` (into it, under the file's name, when it is a local directory). */
  async download(device: string, remotePath: string, localPath: string, scope?: SyncScope & { localRoot: string }, transfer: TransferOptions = {}): Promise<void> {
    if (!scope && namesDirectory(localPath)) await requireLocalDirectory(localPath);
    const target = !scope && (await isDirectory(localPath)) ? join(localPath, posix.basename(remotePath)) : localPath;
    const download = await this.http.download(device, scope ? { path: remotePath, within: scope.within, sync: scope.sync } : { path: remotePath });
    let writer;
    try {
      writer = await openFileWriter(target, { mode: download.mode, mtime: download.mtime, within: scope?.localRoot, tempFiles: interruptCleanup });
    } catch (err) {
      download.body.destroy();
      throw err;
    }
    await writer.write(reportingProgress(deviceLost(download.body, device, remotePath), download.size, transfer.onProgress), {
      size: download.size,
      expectedSha256: () => download.sha256() ?? brokenTransfer(device, remotePath),
    });
  }

  /** Streams a device file into `sink` (stdout), checked as it passes; `sink` is left open. */
  async downloadToStream(device: string, remotePath: string, sink: Writable, transfer: TransferOptions = {}): Promise<void> {
    const download = await this.http.download(device, { path: remotePath });
    const data = reportingProgress(deviceLost(download.body, device, remotePath), download.size, transfer.onProgress);
    await writeToStream(data, sink, { size: download.size, expectedSha256: () => download.sha256() ?? brokenTransfer(device, remotePath) });
  }

  /** Device to device: the bytes pass through this process, the source's checksum is the target's check. */
  private async copyBetweenDevices(from: FileLocation & { kind: 'device' }, to: FileLocation & { kind: 'device' }, transfer: TransferOptions): Promise<void> {
    const download = await this.http.download(from.device, { path: from.path });
    const query = { path: to.path, name: posix.basename(from.path) };
    const data = reportingProgress(deviceLost(download.body, from.device, from.path), download.size, transfer.onProgress);
    await this.http.upload(to.device, query, download, data, () => download.sha256() ?? brokenTransfer(from.device, from.path));
  }

  close(): void {
    this.http.close();
  }

  /** Refuses a device destination written as a directory (`dev:/tmp/nd/`) that is not one, before any byte is sent. */
  private async requireDeviceDirectory(device: string, path: string): Promise<void> {
    try {
      await this.http.json('device_ls.list', device, { path });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NOT_FOUND') throw noSuchDirectory(`${device}:${path}`);
      throw err;
    }
  }
}

/**
 * A destination ending in "/" names a directory that must exist, as cp and scp take it: `nd/` is
 * never a new file `nd` (nor a new directory).
 */
function namesDirectory(path: string): boolean {
  return path.endsWith('/') || path.endsWith(sep);
}

async function requireLocalDirectory(path: string): Promise<void> {
  try {
    await stat(path); // with the trailing "/", anything but a directory is ENOTDIR
  } catch (err) {
    throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? noSuchDirectory(path) : fileSystemError(err, path);
  }
}

function noSuchDirectory(path: string): NotFoundError {
  return new NotFoundError(`No such directory: ${path}`);
}

function brokenTransfer(device: string, path: string): never {
  throw new DeviceLostError(device, `the download of ${path}: the transfer broke off before its checksum arrived`);
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
