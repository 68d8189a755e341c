import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { TEMP_FILE_NAME, TempFileJournal } from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';

/**
 * An upload whose data stops flowing for this long is cancelled (fs-write-handler.ts), so an
 * upload's temp file not written to for longer belongs to no live transfer: the longest a
 * transfer may sit idle is the age after which its temp file is stale.
 */
export const UPLOAD_STALL_MS = 10 * 60_000;
/** How often the runtime looks for stale temp files, besides at start. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * The runtime's own upload temp files (docs/protocol.md, "Files"). A temp file lives next to its
 * target, anywhere on the device, so each one is noted in a journal under the runtime's config
 * directory (`upload-temps/`, one small file naming it) while it exists. A crash or `kill -9` in
 * mid-upload leaves the note behind; the sweep, at start and every SWEEP_INTERVAL_MS, removes
 * each noted temp file that still has a temp file's name, is a regular file, belongs to no upload
 * of this process and has not been written to for UPLOAD_STALL_MS. Nothing else is ever removed.
 */
export class UploadTempFiles implements TempFileJournal {
  private readonly dir: string;
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    configDir: string,
    private readonly log: RuntimeLogger,
    private readonly staleAfterMs = UPLOAD_STALL_MS,
  ) {
    this.dir = join(configDir, 'upload-temps');
  }

  async record(temp: string): Promise<void> {
    this.inFlight.add(temp);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(this.noteOf(temp), temp, { mode: 0o600 });
  }

  async forget(temp: string): Promise<void> {
    this.inFlight.delete(temp);
    await unlink(this.noteOf(temp)).catch(() => undefined);
  }

  /** Sweeps now, then periodically until stop(). */
  start(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sweep(now = Date.now()): Promise<void> {
    const notes = await readdir(this.dir).catch(() => [] as string[]);
    for (const note of notes) {
      const temp = await readFile(join(this.dir, note), 'utf8').catch(() => undefined);
      if (temp === undefined || this.inFlight.has(temp)) continue;
      const info = TEMP_FILE_NAME.test(basename(temp)) ? await lstat(temp).catch(() => undefined) : undefined;
      if (info?.isFile() && now - info.mtimeMs < this.staleAfterMs) continue; // perhaps still written by an earlier life's straggler: later
      if (info?.isFile()) {
        const removed = await unlink(temp).then(() => true, (error: unknown) => (this.log.warn('stale upload temp file not removed', { path: temp, error }), false));
        if (!removed) continue;
        this.log.info('stale upload temp file removed', { path: temp });
      }
      await unlink(join(this.dir, note)).catch(() => undefined);
    }
  }

  private noteOf(temp: string): string {
    return join(this.dir, createHash('sha256').update(temp).digest('hex').slice(0, 32));
  }
}
