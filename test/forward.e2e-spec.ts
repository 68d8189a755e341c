/**
 * Port forwarding end to end: the CLI's SDK (DeviceStreams + LocalForwarder) → client streams on
 * UNIFIED_PORT (ALPN h2, user token) → the relay → a real runtime process → TCP and unix-socket
 * servers on the "device". Real TLS (trusted through the staging CA file), real tokens.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForwardMapping, parseForwardSpec } from '@svc/common';
import { DeviceStreamError, DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { LocalForwarder } from '../apps/cli/src/sdk/local-forwarder';
import type { Caller } from './fixtures/api-client';
import { untilSteady } from './fixtures/eventually';
import { exchange, startCountServer, startEchoServer, startFirehoseServer, TargetServer } from './fixtures/forward-targets';
import { useFleet } from './fixtures/fleet';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@forward.test';
const CONNECTIONS = 50;
/**
 * 200 MiB each way at once, more than the kernel's socket buffers hold: both ends of the client's
 * and of the tunnel's HTTP/2 connections write while the other is writing, which stalled both
 * connections until a keep-alive cut them before each got a WriteAheadSocket.
 */
const PAYLOAD_BYTES = 4 * 1024 * 1024;

describe('forwarding through client streams (real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-forward-'));
  let streams: DeviceStreams;
  const targets: TargetServer[] = [];
  const forwarders: LocalForwarder[] = [];
  // Declared before the fleet, so that it runs first: the client's connection closes before the server.
  afterAll(async () => {
    await streams?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({
    users: { alice: ALICE },
    devices: { 'fw-1': { owner: 'alice', shares: { 'viewer@forward.test': 'viewer' }, runtime: true }, 'fw-off': { owner: 'alice' } },
  });
  let server: TestServer;
  let alice: Caller;

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
    streams = streamsFor(alice);
  });
  afterEach(async () => {
    await Promise.all(forwarders.splice(0).map((f) => f.close()));
    await Promise.all(targets.splice(0).map((t) => t.close()));
  });

  function streamsFor(caller: Caller): DeviceStreams {
    return new DeviceStreams({ host: '127.0.0.1', port: server.tunnel!.port, trust: { ca: readFileSync(server.tunnel!.caFile) }, token: () => caller.token! });
  }

  async function target<T extends TargetServer>(start: Promise<T>): Promise<T> {
    const started = await start;
    targets.push(started);
    return started;
  }

  /** A listener for the mapping; a TCP local side listens on an ephemeral port. */
  async function forwarder(mapping: ForwardMapping, errors: Error[] = []): Promise<{ port: number; path: string; forwarder: LocalForwarder }> {
    const local = mapping.local.kind === 'tcp' ? { kind: 'tcp' as const, port: 0 } : mapping.local;
    const created = new LocalForwarder(streams, 'fw-1', { ...mapping, local }, { onConnectionError: (err) => errors.push(err) });
    forwarders.push(created);
    const bound = await created.listen();
    return { port: typeof bound === 'number' ? bound : 0, path: typeof bound === 'string' ? bound : '', forwarder: created };
  }

  /** Runs `start` on `count` consecutive free ports (random base, retried when one is taken). */
  async function onConsecutivePorts<T extends { close(): Promise<void> }>(count: number, start: (port: number, index: number) => Promise<T>): Promise<T[]> {
    for (;;) {
      const base = 20_000 + Math.floor(Math.random() * 40_000);
      const started: T[] = [];
      try {
        for (let i = 0; i < count; i++) started.push(await start(base + i, i));
        return started;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        await Promise.all(started.map((s) => s.close()));
      }
    }
  }

  async function expectEchoes(at: { port: number } | { path: string }, errors: Error[]): Promise<void> {
    const payloads = Array.from({ length: CONNECTIONS }, () => randomBytes(PAYLOAD_BYTES));
    const echoed = await Promise.all(payloads.map((payload) => exchange(at, payload))).catch((err: Error) => {
      throw new Error(`${err.message}; the forwarder's connection errors: ${JSON.stringify(errors.map((e) => `${(e as { code?: string }).code}: ${e.message}`))}`);
    });
    echoed.forEach((back, i) => expect(back.equals(payloads[i])).toBe(true));
  }

  it('a connection torn down under an open stream (as the keep-alive does) ends the stream, it does not crash the process', async () => {
    const echo = await target(startEchoServer({ host: '127.0.0.1' }));
    const own = streamsFor(alice);
    try {
      const stream = await own.openForward('fw-1', { kind: 'tcp', host: '127.0.0.1', port: echo.port });
      const closed = new Promise((resolve) => stream.once('close', resolve));
      // What keepAlive() does after two unanswered pings; the stream has no listener of its caller yet.
      (own as unknown as { live: { destroy(error: Error): void } }).live.destroy(new Error('keep-alive timeout'));
      await closed;
      expect(stream.destroyed).toBe(true);
    } finally {
      await own.close();
    }
  });

  it(`forwards ${CONNECTIONS} concurrent TCP connections of ${PAYLOAD_BYTES / 1024} KiB byte for byte`, async () => {
    const echo = await target(startEchoServer({ host: '127.0.0.1' }));
    const [mapping] = parseForwardSpec(`10022:${echo.port}`);
    const errors: Error[] = [];
    const { port } = await forwarder(mapping, errors);
    await expectEchoes({ port }, errors);
    expect(echo.accepted).toHaveLength(CONNECTIONS);
  });

  it(`forwards ${CONNECTIONS} concurrent connections from a local unix socket to one on the device`, async () => {
    const echo = await target(startEchoServer({ path: join(dir, 'echo.sock') }));
    const [mapping] = parseForwardSpec(`${join(dir, 'local.sock')}:${join(dir, 'echo.sock')}`);
    const errors: Error[] = [];
    const { path } = await forwarder(mapping, errors);
    await expectEchoes({ path }, errors);
    expect(echo.accepted).toHaveLength(CONNECTIONS);
  });

  it('keeps the other direction open after a half-close', async () => {
    const counter = await target(startCountServer({ host: '127.0.0.1' }));
    const [mapping] = parseForwardSpec(`10023:${counter.port}`);
    const { port } = await forwarder(mapping);
    // The answer is written only after the target saw our FIN: it crosses a half-closed forward.
    const answer = await exchange({ port }, randomBytes(100_000));
    expect(answer.toString()).toBe('received 100000');
  });

  it('reaches another host on the device network (<local>:<host>:<remote>)', async () => {
    const echo = await target(startEchoServer({ host: '127.0.0.2' }));
    const [mapping] = parseForwardSpec(`10024:127.0.0.2:${echo.port}`);
    expect(mapping.remote).toEqual({ kind: 'tcp', host: '127.0.0.2', port: echo.port });
    const { port } = await forwarder(mapping);
    const payload = randomBytes(64 * 1024);
    // The echo server listens on 127.0.0.2 only: an answer proves the device dialled that host.
    expect((await exchange({ port }, payload)).equals(payload)).toBe(true);
    expect(echo.accepted).toHaveLength(1);
  });

  it('forwards a port range pairwise (<a>-<b>:<c>-<d>)', async () => {
    const echoes = await onConsecutivePorts(3, (port) => target(startEchoServer({ host: '127.0.0.1', port })));
    const remote = echoes[0].port;
    // The local range is bound for real, so its ports must be free too: mapping i listens on base + i.
    const listeners = await onConsecutivePorts(3, async (port, i) => {
      const mappings = parseForwardSpec(`${port - i}-${port - i + 2}:${remote}-${remote + 2}`);
      expect(mappings).toHaveLength(3);
      const created = new LocalForwarder(streams, 'fw-1', mappings[i]);
      forwarders.push(created);
      await created.listen();
      return created;
    });
    for (const [i, listener] of listeners.entries()) {
      const payload = randomBytes(32 * 1024);
      expect((await exchange({ port: (listener.mapping.local as { port: number }).port }, payload)).equals(payload)).toBe(true);
      expect(echoes[i].accepted).toHaveLength(1); // local port i reached remote port i, and only it
    }
  });

  it('passes a reset through to the target', async () => {
    const echo = await target(startEchoServer({ host: '127.0.0.1' }));
    const [mapping] = parseForwardSpec(`10025:${echo.port}`);
    const { port } = await forwarder(mapping);
    const socket = connect({ port, host: '127.0.0.1' });
    socket.on('error', () => undefined);
    socket.write('ping');
    await new Promise((resolve) => socket.once('data', resolve));
    const targetSide = echo.accepted[0];
    const targetClosed = new Promise((resolve) => targetSide.once('close', resolve));
    socket.resetAndDestroy();
    await targetClosed;
    // Cut short, not ended: the target never saw a FIN.
    expect(targetSide.readableEnded).toBe(false);
  });

  it('lets a slow reader hold the target back instead of buffering the whole transfer', async () => {
    const total = 512 * 1024 * 1024;
    const firehose = await target(startFirehoseServer({ host: '127.0.0.1' }, total));
    const stream = await streams.openForward('fw-1', { kind: 'tcp', host: '127.0.0.1', port: firehose.port });
    stream.pause();
    await untilSteady('the target to hand over no more: every buffer on the way full', () => firehose.sent());
    expect(firehose.sent()).toBeLessThan(total / 4);
    let received = 0;
    stream.on('data', (chunk: Buffer) => (received += chunk.length));
    stream.resume(); // paused explicitly above: a 'data' listener alone does not restart it
    stream.end();
    await new Promise((resolve) => stream.once('end', resolve));
    expect(received).toBe(total);
  });

  it('keeps taking new streams on the tunnel while many forwards are held back by slow readers', async () => {
    // Each held-back forward may leave up to SPLICE_BUFFER_BYTES queued at each hop; nghttp2
    // refuses new streams (ENHANCE_YOUR_CALM) once a session holds more than its maxSessionMemory
    // (TUNNEL_HTTP2.maxSessionMemoryMb at every end; the runtime's was nghttp2's 10 MB, which this
    // test overran on a loaded machine). A guard: 24 held back still leave room for another.
    const held = 24;
    const firehoses = await Promise.all(Array.from({ length: held }, () => target(startFirehoseServer({ host: '127.0.0.1' }, 64 * 1024 * 1024))));
    const stalled = await Promise.all(firehoses.map((firehose) => streams.openForward('fw-1', { kind: 'tcp', host: '127.0.0.1', port: firehose.port })));
    for (const stream of stalled) stream.pause();
    await untilSteady('every held-back forward full', () => firehoses.reduce((sum, firehose) => sum + firehose.sent(), 0));
    const echo = await target(startEchoServer({ host: '127.0.0.1' }));
    const [mapping] = parseForwardSpec(`10026:${echo.port}`);
    const { port } = await forwarder(mapping);
    const payload = randomBytes(64 * 1024);
    expect((await exchange({ port }, payload)).equals(payload)).toBe(true);
    for (const stream of stalled) stream.destroy();
  });

  describe('refusals before any byte', () => {
    const tcpTarget = { kind: 'tcp' as const, host: '127.0.0.1', port: 9 };

    async function refusal(open: Promise<unknown>): Promise<DeviceStreamError> {
      const error = await open.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(DeviceStreamError);
      return error as DeviceStreamError;
    }

    it('answers CONNECTION_REFUSED (502) for a closed port, and the local connection is closed', async () => {
      const closed = await target(startEchoServer({ host: '127.0.0.1' }));
      await closed.close();
      const error = await refusal(streams.openForward('fw-1', { kind: 'tcp', host: '127.0.0.1', port: closed.port }));
      expect(error).toMatchObject({ code: 'CONNECTION_REFUSED', statusCode: 502, message: expect.stringContaining(`127.0.0.1:${closed.port}`) });

      const errors: Error[] = [];
      const { port } = await forwarder(parseForwardSpec(`10026:${closed.port}`)[0], errors);
      await expect(exchange({ port }, Buffer.from('x'))).rejects.toThrow();
      expect(errors).toEqual([expect.objectContaining({ code: 'CONNECTION_REFUSED' })]);
    });

    it('answers NOT_FOUND for a missing unix socket', async () => {
      const error = await refusal(streams.openForward('fw-1', { kind: 'unix', path: join(dir, 'nothing-here.sock') }));
      expect(error).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
    });

    it.each([
      ['a viewer', 'viewer@forward.test', 'fw-1', 403, 'FORBIDDEN'],
      ['a stranger', 'stranger@forward.test', 'fw-1', 404, 'DEVICE_NOT_FOUND'],
      ['the owner of an offline device', ALICE, 'fw-off', 503, 'DEVICE_OFFLINE'],
    ])('answers %s with %s', async (_name, email, device, statusCode, code) => {
      const caller = streamsFor(await server.login(email));
      try {
        const error = await refusal(caller.openForward(device, tcpTarget));
        expect(error).toMatchObject({ code, statusCode, requestId: expect.any(String) });
      } finally {
        await caller.close();
      }
    });

    it.each([
      ['a forged token', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
      ['no token', ''],
    ])('answers UNAUTHENTICATED (401) for %s', async (_name, token) => {
      const caller = streamsFor({ token });
      try {
        const error = await refusal(caller.openForward('fw-1', tcpTarget));
        expect(error).toMatchObject({ code: 'UNAUTHENTICATED', statusCode: 401 });
      } finally {
        await caller.close();
      }
    });

    it('answers INVALID_INPUT (400) for a bad target', async () => {
      const error = await refusal(streams.openForward('fw-1', { kind: 'tcp', host: '127.0.0.1', port: 0 }));
      expect(error).toMatchObject({ code: 'INVALID_INPUT', statusCode: 400, message: expect.stringContaining('port') });
    });
  });

  it('audits a forward once per user, device and target per minute', async () => {
    const echo = await target(startEchoServer({ host: '127.0.0.1' }));
    const { port } = await forwarder(parseForwardSpec(`10027:${echo.port}`)[0]);
    const audited = async () => {
      const { logs } = await fleet.user('alice').route('device_audit_logs.one', { device: 'fw-1', max: 1000 });
      return (logs as { action: string; details: string; user: string }[]).filter((e) => e.action === 'device.forward_opened' && e.details.endsWith(`:${echo.port}`));
    };
    await Promise.all(Array.from({ length: 5 }, () => exchange({ port }, Buffer.from('hello'))));
    expect(await audited()).toEqual([expect.objectContaining({ user: ALICE, details: `forward to tcp 127.0.0.1:${echo.port}` })]);
    server.clock.advance(61_000);
    await exchange({ port }, Buffer.from('again'));
    expect(await audited()).toHaveLength(2);
  });
});
