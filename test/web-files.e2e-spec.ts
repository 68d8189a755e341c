/**
 * The dashboard's files panel in a real browser against a real server, identity provider and
 * runtime: files dropped onto the panel arrive on the device byte for byte, and a download is
 * checked against the device's SHA-256 (the files manifest route) before it is saved; a download
 * whose bytes do not match is refused and not saved; a file of 64 MiB goes both ways streamed,
 * the page's heap staying far below its size. No console error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { signInThroughProvider, useBrowserFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';
import { sha256OfFile, writeDeterministicFile } from './fixtures/large-files';

const ALICE = 'alice@web-files.test';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const MIB = 1024 * 1024;

describe('web dashboard files', () => {
  const web = useBrowserFleet({ users: { alice: ALICE }, devices: { 'dev-1': { owner: 'alice', hostname: 'files-pi', runtime: true } } });
  let page: Page;
  let dir: string;
  const downloads: Download[] = [];

  beforeAll(async () => {
    page = (await web.openTab(1280)).page;
    page.on('download', (download) => downloads.push(download));
    await signInThroughProvider(page, web.fleet.server.url, ALICE);
    dir = mkdtempSync(join(tmpdir(), 'svc-web-files-'));
    // Neighbours the checksum lookup must neither hash nor descend into.
    writeFileSync(join(dir, 'neighbour.bin'), randomBytes(1000));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'deep.bin'), randomBytes(1000));
    await page.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await page.getByLabel('Directory').fill(dir);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('button', { name: 'Download neighbour.bin' }).waitFor();
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Drops files on the panel's drop zone as a browser does: a DataTransfer built in the page. */
  async function drop(files: { name: string; bytes: Buffer }[]): Promise<void> {
    const list = JSON.stringify(files.map(({ name, bytes }) => ({ name, base64: bytes.toString('base64') })));
    // Runs in the page (a string, as the test's own TypeScript knows no DOM).
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      for (const { name, base64 } of ${list}) {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
      }
      return transfer;
    })()`);
    const zone = page.locator('[data-drop-zone]');
    await zone.dispatchEvent('dragenter', { dataTransfer });
    await eventually('the drop zone highlighted', async () => ((await zone.getAttribute('class')) ?? '').includes('dragging'));
    await zone.dispatchEvent('drop', { dataTransfer });
  }

  it('uploads the files dropped on the panel into the directory shown, bytes equal', async () => {
    const first = randomBytes(200_000);
    const second = randomBytes(3_000);
    await drop([
      { name: 'dropped.bin', bytes: first },
      { name: 'odd name (1) [x].bin', bytes: second },
    ]);
    await page.getByRole('status').filter({ hasText: 'Uploaded odd name (1) [x].bin' }).waitFor();
    expect(sha256(readFileSync(join(dir, 'dropped.bin')))).toBe(sha256(first));
    expect(sha256(readFileSync(join(dir, 'odd name (1) [x].bin')))).toBe(sha256(second));
    await page.getByRole('button', { name: 'Download dropped.bin' }).waitFor();

    // At phone width the drop zone and its file input fit the window.
    await page.setViewportSize({ width: 390, height: 860 });
    await expect(page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).resolves.toBe(0);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('verifies a download against the SHA-256 the device reports, then saves it', async () => {
    for (const name of ['dropped.bin', 'odd name (1) [x].bin']) {
      const expected = sha256(readFileSync(join(dir, name)));
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download ${name}` }).click()]);
      expect(download.suggestedFilename()).toBe(name);
      expect(sha256(readFileSync((await download.path())!))).toBe(expected);
      await page.getByRole('status').filter({ hasText: `Downloaded ${name}` }).filter({ hasText: `verified (sha256 ${expected})` }).waitFor();
    }
  });

  it('refuses a download whose bytes differ from the checksum and does not save it', async () => {
    const before = downloads.length;
    // The device's copy changed after the manifest answered: here the answer is replaced on its way to the page.
    await page.route('**/files/manifest', (route) =>
      route.fulfill({ status: 200, contentType: 'application/x-ndjson', body: `${JSON.stringify({ path: 'dropped.bin', is_dir: false, size: 1, mode: 0o644, mtime: 0, sha256: '0'.repeat(64) })}\n` }),
    );
    try {
      await page.getByRole('button', { name: 'Download dropped.bin' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'was not saved' });
      await alert.waitFor();
      expect(await alert.textContent()).toContain(`dropped.bin was not saved: its bytes hash to sha256 ${sha256(readFileSync(join(dir, 'dropped.bin')))}`);
      expect(await page.getByRole('status').filter({ hasText: 'Downloaded' }).count()).toBe(0);
      expect(downloads.length).toBe(before);
    } finally {
      await page.unroute('**/files/manifest');
    }
  });

  it('streams a 64 MiB file both ways: bytes equal, and the page heap stays far below the file size', async () => {
    const size = 64 * MIB + 12_345; // no multiple of any chunk size
    const scratch = mkdtempSync(join(tmpdir(), 'svc-web-big-'));
    try {
      const source = join(scratch, 'big.bin');
      const expected = await writeDeterministicFile(source, size);
      // What the page holds: its JavaScript heap and the ArrayBuffers it keeps (an arrayBuffer() of
      // the file is the latter), after a full GC, so that chunks already hashed and dropped do not count.
      const cdp = await page.context().newCDPSession(page);
      const collectedHeap = async () => {
        // Twice: V8 frees a dead ArrayBuffer's storage on a background thread after a GC and
        // finishes that at the start of the next.
        await cdp.send('HeapProfiler.collectGarbage');
        await cdp.send('HeapProfiler.collectGarbage');
        const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize: number };
        return usage.usedSize + usage.backingStorageSize;
      };
      // The smaller of two collected samples 30 ms apart: on a loaded machine the background
      // freeing still lagged behind two GCs (one and then two GCs each let a CI rehearsal count
      // ~50 MiB of chunks already hashed and dropped), while what the page keeps (an arrayBuffer()
      // of the file) is in both.
      const heap = async () => {
        const first = await collectedHeap();
        await new Promise((resolve) => setTimeout(resolve, 30));
        return Math.min(first, await collectedHeap());
      };
      const baseline = await heap();
      let peak = baseline;
      /** Samples the heap every 50 ms until `done` holds. */
      const watchHeapUntil = (what: string, done: () => Promise<boolean>) =>
        eventually(what, async () => {
          peak = Math.max(peak, await heap());
          return done();
        }, { intervalMs: 50, timeoutMs: 240_000 });

      // Chosen with the file input: the browser reads it from disk (playwright hands chromium the path).
      let started = Date.now();
      await page.getByLabel('Upload a file').setInputFiles(source);
      await watchHeapUntil('the upload to end', async () => (await page.getByRole('status').filter({ hasText: `Uploaded big.bin (${size} bytes)` }).count()) > 0);
      const uploadPeak = peak - baseline;
      const uploadMs = Date.now() - started;
      expect(await sha256OfFile(join(dir, 'big.bin'))).toBe(expected);

      peak = await heap();
      const downloadBaseline = peak;
      // At 16 MiB/s the download lasts about 4 s: long enough for the samples to see what the page gathers.
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 16 * MIB, uploadThroughput: -1 });
      const saved = page.waitForEvent('download', { timeout: 240_000 });
      started = Date.now();
      await page.getByRole('button', { name: 'Download big.bin' }).click();
      await watchHeapUntil('the download verified', async () => (await page.getByRole('status').filter({ hasText: `verified (sha256 ${expected})` }).count()) > 0);
      const downloadPeak = peak - downloadBaseline;
      const downloadMs = Date.now() - started;
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      expect(await sha256OfFile((await (await saved).path())!)).toBe(expected);
      process.stdout.write(`64 MiB through the page: upload ${uploadMs} ms, heap above baseline at most ${(uploadPeak / MIB).toFixed(1)} MiB; download (16 MiB/s) ${downloadMs} ms, at most ${(downloadPeak / MIB).toFixed(1)} MiB\n`);
      expect(uploadPeak).toBeLessThan(size / 4);
      expect(downloadPeak).toBeLessThan(size / 4);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      rmSync(join(dir, 'big.bin'), { force: true });
    }
  }, 600_000);
});
