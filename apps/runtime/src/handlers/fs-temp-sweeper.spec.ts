import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeLogger } from '../logging/runtime-logger';
import { UploadTempFiles, UPLOAD_STALL_MS } from './fs-temp-sweeper';

describe('UploadTempFiles (the sweep of stale upload temp files)', () => {
  let dir: string;
  const log = new RuntimeLogger('error', () => undefined);

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-sweep-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const temp = (name: string, ageMs: number) => {
    const path = join(dir, `.${name}.svc-0123456789ab.tmp`);
    writeFileSync(path, 'partial');
    const when = new Date(Date.now() - ageMs);
    utimesSync(path, when, when);
    return path;
  };

  it('removes noted temp files idle past the stall limit, keeps fresh ones, those in flight and anything not named as a temp file', async () => {
    const earlier = new UploadTempFiles(join(dir, 'config'), log);
    const stale = temp('stale', UPLOAD_STALL_MS + 60_000);
    const fresh = temp('fresh', 1000);
    const notATemp = join(dir, 'precious');
    writeFileSync(notATemp, 'keep');
    for (const path of [stale, fresh, notATemp]) await earlier.record(path);

    const now = new UploadTempFiles(join(dir, 'config'), log);
    const inFlight = temp('in-flight', UPLOAD_STALL_MS + 60_000);
    await now.record(inFlight);
    await now.sweep();
    expect([stale, fresh, notATemp, inFlight].map(existsSync)).toEqual([false, true, true, true]);

    // Later (the periodic sweep): the fresh one has gone stale, the upload in flight has ended.
    await now.forget(inFlight);
    await now.sweep(Date.now() + UPLOAD_STALL_MS + 60_000);
    expect([fresh, notATemp, inFlight].map(existsSync)).toEqual([false, true, true]);
  });
});
