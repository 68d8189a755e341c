/**
 * How the server takes a device's file answers, with a stub device (tunnel-runtime-stub.ts) that
 * misbehaves on purpose: one that accepts a file stream and never answers meets the server's
 * deadline (FILES_STALL_TIMEOUT_SECS) and the user gets a clear TIMEOUT from `svc`; one that
 * sends huge listings cannot stall the server for others (/health keeps answering) nor grow its
 * memory by the size of the answers.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerHttp2Stream } from 'node:http2';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Caller } from './fixtures/api-client';
import { useFleet } from './fixtures/fleet';
import { CliHome, svc } from './fixtures/svc-cli';
import type { TestServer } from './fixtures/test-server';
import { connectRuntimeStub, RuntimeStub } from './fixtures/tunnel-runtime-stub';

const ALICE = 'alice@device-answers.test';
const STALL_SECS = 3;
const HUGE_BYTES = 55 * 1024 * 1024;
const MiB = 1024 * 1024;
const BIG_FILE_BYTES = 64 * MiB;

/** Writes a JSON array of listing entries of about `bytes` bytes, chunk by chunk, with flow control. */
async function writeHugeListing(stream: ServerHttp2Stream, bytes: number): Promise<void> {
  stream.respond({ ':status': 200, 'content-type': 'application/json' });
  let written = 0;
  let index = 0;
  let first = true;
  stream.write('[');
  while (written < bytes && !stream.destroyed) {
    const entries: string[] = [];
    for (let n = 0; n < 2000; n++, index++) entries.push(JSON.stringify({ name: `file-${index}`, is_dir: false, size: index, mode: 420, mtime: 1700000000000, is_symlink: false }));
    const chunk = `${first ? '' : ','}${entries.join(',')}`;
    first = false;
    written += chunk.length;
    if (!stream.write(chunk)) await flowing(stream);
  }
  if (!stream.destroyed) stream.end(']');
}

/** Resolves once a stream that refused a write takes more ('drain'), or is gone ('close'). */
function flowing(stream: ServerHttp2Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done);
      resolve();
    };
    stream.on('drain', done).on('close', done);
  });
}

/** A file of `bytes` bytes, sent with flow control and its checksum as the trailer (the fs/read protocol). */
async function writeBigFile(stream: ServerHttp2Stream, bytes: number): Promise<void> {
  const chunk = randomBytes(MiB);
  const hash = createHash('sha256');
  stream.respond({ ':status': 200, 'svc-size': String(bytes), 'svc-mode': '0644', 'svc-mtime': '0' }, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers({ 'svc-sha256': hash.digest('hex') }));
  for (let sent = 0; sent < bytes && !stream.destroyed; sent += chunk.length) {
    hash.update(chunk);
    if (!stream.write(chunk)) await flowing(stream);
  }
  if (!stream.destroyed) stream.end();
}

/**
 * Reads a GET answer to its end without keeping it; its status and length. `pauseMs`: a caller
 * that stops reading after its first bytes for that long (its flow control holds the device back).
 */
function drainGet(url: string, token: string, pauseMs = 0): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      let bytes = 0;
      res.once('data', () => {
        if (pauseMs === 0) return;
        res.pause();
        setTimeout(() => res.resume(), pauseMs);
      });
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('device answers: deadline and big listings (stub device)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-device-answers-'));
  let stub: RuntimeStub | undefined;
  // Declared before the fleet, so that it runs first: the stub device leaves before the server stops.
  afterAll(() => {
    stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({ env: { FILES_STALL_TIMEOUT_SECS: String(STALL_SECS) }, relay: true, users: { alice: ALICE }, devices: { 'stub-1': { owner: 'alice' } } });
  let server: TestServer;
  let alice: Caller;
  let cli: CliHome;

  beforeAll(async () => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
    cli = fleet.user('alice').home;
    stub = await connectRuntimeStub({
      port: server.tunnel!.port,
      ca: server.tunnel!.caFile,
      apiKey: fleet.device('stub-1').apiKey,
      handlers: {
        // Accepts, then never answers a listing of /silent; any other listing is huge.
        'fs/ls': (stream, args) => {
          stream.on('error', () => undefined); // cancelled by the server's deadline
          if (args.path === '/silent') stream.respond({ ':status': 200, 'content-type': 'application/json' });
          else void writeHugeListing(stream, HUGE_BYTES);
        },
        // Accepts an upload, takes its bytes, and never says how it went.
        'fs/write': (stream) => {
          stream.on('error', () => undefined);
          stream.respond({ ':status': 200, 'content-type': 'application/json' });
          stream.resume();
        },
        // Announces a file and never sends it; /big is a big file, sent.
        'fs/read': (stream, args) => {
          stream.on('error', () => undefined);
          if (args.path === '/big') return void writeBigFile(stream, BIG_FILE_BYTES);
          stream.respond({ ':status': 200, 'svc-size': '10', 'svc-mode': '0644', 'svc-mtime': '0' }, { waitForTrailers: true });
        },
      },
    });
    expect(stub.hello.ok).toBe(true);
  });

  describe(`a device that accepts a file stream and never answers (deadline ${STALL_SECS} s)`, () => {
    const timedOut = new RegExp(`Device stub-1 did not answer for ${STALL_SECS} s`);

    it('fails svc ls with TIMEOUT', async () => {
      const result = await svc(cli, ['ls', 'stub-1:/silent']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(timedOut);
    });

    it('fails svc cp up with TIMEOUT', async () => {
      writeFileSync(join(dir, 'up.bin'), randomBytes(100_000));
      const result = await svc(cli, ['cp', join(dir, 'up.bin'), 'stub-1:/tmp/up.bin']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(timedOut);
    });

    it('fails svc cp down with TIMEOUT, creating nothing', async () => {
      const result = await svc(cli, ['cp', 'stub-1:/etc/never', join(dir, 'never')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(timedOut);
      expect(existsSync(join(dir, 'never'))).toBe(false);
    });
  });

  describe('a caller that stops reading for longer than the deadline: not the device stalling, so not cut', () => {
    const pauseMs = (STALL_SECS + 2) * 1000;

    it('gets the whole listing', async () => {
      const answer = await drainGet(`${server.url}/devices/stub-1/files?path=${encodeURIComponent('/big')}`, alice.token!, pauseMs);
      expect(answer.status).toBe(200);
      expect(answer.bytes).toBeGreaterThan(HUGE_BYTES);
    });

    it('gets the whole file', async () => {
      const answer = await drainGet(`${server.url}/devices/stub-1/files/content?path=${encodeURIComponent('/big')}`, alice.token!, pauseMs);
      expect(answer).toEqual({ status: 200, bytes: BIG_FILE_BYTES });
    });
  });

  it('relays eight 55 MiB listings, two at a time, while /health answers and memory stays bounded', async () => {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    let healthChecks = 0;
    let healthFailures = 0;
    let slowestHealthMs = 0;
    let running = true;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const health = (async () => {
      while (running) {
        const started = Date.now();
        const answer = await server.api.get('/health');
        slowestHealthMs = Math.max(slowestHealthMs, Date.now() - started);
        healthChecks++;
        if (answer.status !== 200) healthFailures++;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const url = `${server.url}/devices/stub-1/files?path=${encodeURIComponent('/big')}`;
    const answers: { status: number; bytes: number }[] = [];
    try {
      for (let pair = 0; pair < 4; pair++) answers.push(...(await Promise.all([drainGet(url, alice.token!), drainGet(url, alice.token!)])));
    } finally {
      running = false;
      clearInterval(sampler);
      await health;
    }
    const growthMiB = Math.round((peak - baseline) / MiB);
    console.log(`8 x 55 MiB listings: RSS +${growthMiB} MiB (baseline ${Math.round(baseline / MiB)} MiB), /health ${healthChecks} checks, slowest ${slowestHealthMs} ms`);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.bytes).toBeGreaterThan(HUGE_BYTES);
    }
    expect(healthFailures).toBe(0);
    expect(healthChecks).toBeGreaterThan(8);
    // Buffering, parsing and re-encoding two 55 MiB answers at once took some 550 MiB; streamed, it is the windows' worth.
    expect(growthMiB).toBeLessThan(200);
  }, 300_000);
});
