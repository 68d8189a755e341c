/**
 * The runtime's stale upload temp files: uploads cut off by a crash (`kill -9` of the runtime in
 * mid-upload) leave their temp files next to their targets; the restarted runtime removes those
 * not written to for longer than an upload may stall, and keeps a fresh one. Real server, real
 * runtime process, uploads through the REST route.
 */
import { ClientRequest, request } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import type { TestServer } from './fixtures/test-server';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@upload-temps.test';
const HOUR_MS = 60 * 60 * 1000;

describe('stale upload temp files on the device', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-upload-temps-'));
  mkdirSync(join(dir, 'device'));
  const runtimes: RuntimeProcess[] = [];
  const uploads: ClientRequest[] = [];
  // Declared before the fleet, so that it runs first: the runtimes (killed and restarted by the test, so its own) stop before the server.
  afterAll(async () => {
    for (const upload of uploads) upload.destroy();
    for (const runtime of runtimes) runtime.kill('SIGKILL');
    await Promise.all(runtimes.map((runtime) => runtime.exited));
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { alice: ALICE }, devices: { 'temps-1': { owner: 'alice' } } });
  let server: TestServer;

  beforeAll(() => {
    server = fleet.server;
  });

  const temps = () => readdirSync(join(dir, 'device')).filter((name) => /^\..*\.svc-[0-9a-f]{12}\.tmp$/.test(name));

  /** A PUT that sends its first bytes and then nothing more: its temp file stays open on the device. */
  function stalledUpload(path: string, token: string): void {
    const url = `${server.url}/devices/temps-1/files/content?path=${encodeURIComponent(path)}`;
    const req = request(url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'x-svc-size': '1000000', 'x-svc-sha256': 'a'.repeat(64) },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(4096, 1));
    uploads.push(req);
  }

  it('removes the temp file of an upload cut off by a crash once it is stale, at start, and keeps a fresh one', async () => {
    const alice = fleet.user('alice').caller;
    const env = { HOME: dir, SVC_CONFIG_DIR: join(dir, 'config'), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile, SVC_API_KEY: fleet.device('temps-1').apiKey };
    const first = startRuntimeProcess(['run'], env);
    runtimes.push(first);
    await first.waitForLog('tunnel up');
    stalledUpload(join(dir, 'device', 'stale.bin'), alice.token!);
    await eventually('one upload temp file', () => temps().length === 1, { timeoutMs: 60_000 });
    const [stale] = temps();
    stalledUpload(join(dir, 'device', 'fresh.bin'), alice.token!);
    await eventually('two upload temp files', () => temps().length === 2, { timeoutMs: 60_000 });
    const fresh = temps().find((name) => name !== stale)!;
    first.kill('SIGKILL');
    await first.exited;
    expect(temps().sort()).toEqual([fresh, stale].sort());
    const hourAgo = new Date(Date.now() - HOUR_MS);
    utimesSync(join(dir, 'device', stale), hourAgo, hourAgo);

    const second = startRuntimeProcess(['run'], env);
    runtimes.push(second);
    expect(await second.waitForLog('stale upload temp file removed')).toMatchObject({ path: join(dir, 'device', stale) });
    expect(temps()).toEqual([fresh]);
  }, 120_000);
});
