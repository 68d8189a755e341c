/**
 * The tunnel relay end to end: a real server with its TLS listener, real tokens, and a test-only
 * runtime stub (test/fixtures/tunnel-runtime-stub.ts) speaking protocol v1 over a real socket.
 * Covers the hello (good key, bad key), presence, atomic replacement on reconnect, revocation on
 * rejection, certificate trust, discovery, and exec (JSON, batch, NDJSON, stdin, timeout, errors).
 * Everything runs over both carriers (TLS over TCP, and QUIC through test/fixtures/quic-dial.ts),
 * except what only TLS has (ALPN negotiation on the TCP listener).
 */
import { once } from 'node:events';
import { sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import { deriveQuinnIdentity, encodeDataFrames, encodeStreamArgs, FrameType, QUIC_IDENTITY_CONTEXT, readHello, TUNNEL_ALPN } from '@svc/common';
import { OperationRegistry } from '../apps/runtime/src/supervisor/operation-registry';
import { RuntimeLogger } from '../apps/runtime/src/logging/runtime-logger';
import { StreamRouter } from '../apps/runtime/src/tunnel/stream-router';
import { Caller } from './fixtures/api-client';
import { expectError } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import type { TestServer } from './fixtures/test-server';
import { connectRuntimeStub, RuntimeStub } from './fixtures/tunnel-runtime-stub';
import { dialQuicStream } from './fixtures/quic-dial';
import { TunnelRegistry } from '../apps/server/src/relay/tunnel-registry.service';
import type { TunnelSession } from '../apps/server/src/relay/tunnel-carrier';
import { eventually } from './fixtures/eventually';

describe.each(['tcp', 'quic'] as const)('tunnel relay over %s', (carrier) => {
  const other = carrier === 'tcp' ? 'quic' : 'tcp';
  // The REST contract of exec (status, NDJSON, errors) is asserted on the answers themselves.
  const fleet = useFleet({ users: { alice: 'alice@tunnel.test', bob: 'bob@tunnel.test', mallory: 'mallory@tunnel.test' }, relay: true });
  let server: TestServer;
  let alice: Caller;
  const stubs: RuntimeStub[] = [];
  const keys = new Map<string, string>();

  async function device(id: string): Promise<string> {
    const key = (await fleet.addDevice(id, { owner: 'alice' })).apiKey;
    keys.set(id, key);
    return key;
  }

  async function online(id: string, over: 'tcp' | 'quic' = carrier): Promise<RuntimeStub> {
    const stub = await connectRuntimeStub({ carrier: over, port: server.tunnel!.port, ca: server.tunnel!.caFile, apiKey: keys.get(id) ?? (await device(id)) });
    stubs.push(stub);
    // The hello answer can reach the stub before the server registered the session (QUIC acks
    // the answer's write after delivering it): wait until the device is online.
    await eventually(`${id} online`, async () => (await status(id)).status === 'online', { intervalMs: 20 });
    return stub;
  }

  const status = async (id: string) => (await fleet.user('alice').run('device_status', { device: id })) as Record<string, unknown>;
  const exec = (body: object, caller: Caller = alice) => server.api.post('/api/exec', body, caller);
  const ndjson = async (body: object): Promise<Record<string, unknown>[]> => {
    const res = await fetch(`${server.url}/api/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    return (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
  };

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
  });
  afterAll(() => {
    for (const stub of stubs) stub.close();
  });

  describe('discovery and trust', () => {
    it('publishes the tunnel port, ALPN and certificate fingerprint at /auth/config without a token', async () => {
      const res = await server.api.get('/auth/config');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        oauth: { issuer: fleet.idp.issuer, audience: fleet.idp.audience, client_id: 'svc-cli', web_client_id: 'svc-web' },
        tunnel: {
          port: server.tunnel!.port,
          transports: ['quic', 'tcp'],
          alpn: ['svc-tunnel/1'],
          certificate_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          quic: { peer_id: expect.stringMatching(/^12D3KooW/), certificate: readFileSync(server.tunnel!.caFile, 'utf8'), signature: expect.any(String) },
        },
      });
      expect(res.body.tunnel.certificate_sha256).toBe(server.tunnel!.certificateSha256);
    });

    it('serves a certificate whose SHA-256 is the published one, and that a client trusting the CA file accepts', async () => {
      const stub = await online('trust-1');
      expect(stub.hello).toEqual({ v: 1, ok: true, device_id: 'trust-1', heartbeat_secs: 10 });
      const fingerprint = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', servername: 'localhost', port: server.tunnel!.port, ca: readFileSync(server.tunnel!.caFile), ALPNProtocols: [TUNNEL_ALPN] }, () => {
          resolve(socket.getPeerX509Certificate()!.fingerprint256.replace(/:/g, '').toLowerCase());
          socket.destroy();
        });
        socket.once('error', reject);
      });
      expect(fingerprint).toBe(server.tunnel!.certificateSha256);
    });

    it('is refused by a client that does not trust the generated CA', async () => {
      const refusal = carrier === 'tcp' ? { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } : { message: expect.stringMatching(/^QUIC connection to .* refused: server certificate not trusted/) };
      await expect(connectRuntimeStub({ carrier, port: server.tunnel!.port, apiKey: await device('trust-2') })).rejects.toMatchObject(refusal);
      expect(await status('trust-2')).toMatchObject({ status: 'offline' });
    });
    // QUIC only: its handshake proves a key, which the tunnel certificate vouches for.
    if (carrier === 'quic') it('is refused when the QUIC server proves a key other than the one its certificate vouches for', async () => {
      // A validly signed announcement of some other key: the handshake's key must be that one.
      const other = deriveQuinnIdentity('another server', 'test');
      const key = readFileSync(join(dirname(server.tunnel!.caFile), 'key.pem'), 'utf8');
      const identity = { peer_id: other.peerId, certificate: server.tunnel!.quic!.certificate, signature: sign('sha256', Buffer.from(QUIC_IDENTITY_CONTEXT + other.peerId), key).toString('base64') };
      await expect(dialQuicStream({ port: server.tunnel!.port, caFile: server.tunnel!.caFile, identity })).rejects.toMatchObject({ message: expect.stringMatching(/QUIC key 12D3KooW\w+ is not the announced 12D3KooW/) });
      const forged = { ...server.tunnel!.quic!, peer_id: other.peerId };
      await expect(dialQuicStream({ port: server.tunnel!.port, caFile: server.tunnel!.caFile, identity: forged })).rejects.toMatchObject({ message: expect.stringMatching(/not signed by the tunnel certificate/) });
    });
  });

  describe('hello and presence', () => {
    it('brings a device online with health and uptime, and offline with last_seen when it leaves', async () => {
      await device('pres-1');
      expect(await status('pres-1')).toEqual({ status: 'offline', health: 'unknown', uptime: null, last_seen: null });
      const stub = await online('pres-1');
      server.clock.advance(42_000);
      expect(await status('pres-1')).toEqual({ status: 'online', health: 'healthy', uptime: 42, last_seen: expect.any(String), carrier });
      expect(await fleet.user('alice').run('devices_list', {})).toContainEqual(expect.objectContaining({ id: 'pres-1', status: 'online' }));

      stub.close();
      await stub.closed;
      await eventually('pres-1 offline', async () => (await status('pres-1')).status === 'offline');
      expect(await status('pres-1')).toEqual({ status: 'offline', health: 'unreachable', uptime: null, last_seen: expect.any(String) });
    });

    it('refuses a key it does not know with "unauthorized" and closes the connection', async () => {
      const stub = await connectRuntimeStub({ carrier, port: server.tunnel!.port, ca: server.tunnel!.caFile, apiKey: 'svc_' + 'x'.repeat(43) });
      expect(stub.hello).toEqual({ v: 1, ok: false, error: 'unauthorized' });
      await stub.closed;
    });

    it.each([
      ['another protocol version', { v: 2, api_key: 'svc_x', runtime: { version: '9', boot_id: 'b' } }, 'unsupported_version'],
      ['a hello without api_key', { v: 1, runtime: { version: '1', boot_id: 'b' } }, 'unauthorized'],
    ])('answers %s with its refusal', async (_name, hello, error) => {
      expect(await rawHello(carrier, server.tunnel!.port, server.tunnel!.caFile, encodeLengthPrefixed(hello))).toEqual({ v: 1, ok: false, error });
    });

    if (carrier === 'tcp') {
      it('closes a connection that does not negotiate ALPN svc-tunnel/1, without answering', async () => {
        await expect(rawHello('tcp', server.tunnel!.port, server.tunnel!.caFile, encodeLengthPrefixed({}), ['h2'])).rejects.toThrow();
      });
    }

    it('replaces the old tunnel atomically when the device reconnects', async () => {
      const first = await online('re-1');
      const second = await online('re-1');
      await first.closed;
      expect(await status('re-1')).toMatchObject({ status: 'online' });
      const res = await exec({ device: 're-1', command: ['true'] });
      expect(res.body).toEqual({ output: '', exit_code: 0, timed_out: false });
      expect(second.execs).toBe(1);
      expect(first.execs).toBe(0);
    });

    it('replaces the old tunnel atomically when the device reconnects over the other carrier', async () => {
      const first = await online('re-2');
      const second = await online('re-2', other);
      await first.closed;
      expect(server.app.get(TunnelRegistry).sessionOf('re-2')?.carrier).toBe(other);
      expect(await status('re-2')).toMatchObject({ status: 'online' });
      expect((await exec({ device: 're-2', command: ['true'] })).body).toEqual({ output: '', exit_code: 0, timed_out: false });
      expect([first.execs, second.execs]).toEqual([0, 1]);
    });

    it('closes the tunnel of a rejected device at once and refuses its key afterwards', async () => {
      const stub = await online('rej-1');
      await fleet.user('alice').run('devices_reject', { device: 'rej-1' });
      await stub.closed;
      const again = await connectRuntimeStub({ carrier, port: server.tunnel!.port, ca: server.tunnel!.caFile, apiKey: keys.get('rej-1')! });
      expect(again.hello).toEqual({ v: 1, ok: false, error: 'unauthorized' });
    });
  });

  describe('protocol errors', () => {
    // What a runtime sends first: its SETTINGS, and the ACK of the server's (from then on the
    // server's enablePush: false is in force; before it, nghttp2 merely cancels a push).
    const SETTINGS = Buffer.from('000000040000000000' + '000000040100000000', 'hex');
    // Over TCP, nghttp2 reads the socket natively and keeps quiet about a frame it refuses by
    // size: the heartbeat finds the session stopped, within two beats (10 s each).
    it.each([
      ['a PUSH_PROMISE', Buffer.from('00000405040000000100000002', 'hex')],
      ['a SETTINGS frame of a bad length', Buffer.from('0000050400000000000102030405', 'hex')],
      ['a 16 MiB frame', Buffer.concat([Buffer.from('ffffff000000000001', 'hex'), Buffer.alloc(64 * 1024)])],
    ])('closes a tunnel on %s after a valid hello, with the reason, and the device shows offline', async (_name, garbage) => {
      const id = `garbage-${garbage.length}`;
      const key = await device(id);
      const socket: Duplex = carrier === 'quic' ? await dialQuicStream({ port: server.tunnel!.port, caFile: server.tunnel!.caFile }) : connect({ host: '127.0.0.1', servername: 'localhost', port: server.tunnel!.port, ca: readFileSync(server.tunnel!.caFile), ALPNProtocols: [TUNNEL_ALPN] });
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      try {
        if (carrier === 'tcp') await once(socket, 'secureConnect');
        socket.write(encodeLengthPrefixed({ v: 1, api_key: key, runtime: { version: '0.0.0-raw', boot_id: 'raw' } }));
        expect(await readHello(socket)).toMatchObject({ ok: true, device_id: id });
        socket.resume();
        let session: TunnelSession | undefined;
        await eventually('the tunnel session', async () => (session = server.app.get(TunnelRegistry).sessionOf(id)) !== undefined);
        const reason = new Promise<string>((resolve) => session!.onClosed(resolve));
        socket.write(Buffer.concat([SETTINGS, garbage]));
        expect(await reason).toMatch(/^protocol error/);
        expect(server.app.get(TunnelRegistry).sessionOf(id)).toBeUndefined();
        expect(await status(id)).toMatchObject({ status: 'offline' });
        await closed;
      } finally {
        socket.destroy();
      }
    });
  });

  describe('exec', () => {
    let bob: Caller;
    let mallory: Caller;

    beforeAll(async () => {
      await online('ex-1');
      await online('ex-2');
      await device('ex-off');
      bob = fleet.user('bob').caller;
      mallory = fleet.user('mallory').caller;
      await fleet.user('alice').run('device_access_add', { device: 'ex-1', email_or_org_id: 'bob@tunnel.test', role: 'viewer' });
    });

    it('returns the output and exit code', async () => {
      const res = await exec({ device: 'ex-1', command: ['echo', 'hello', 'world'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ output: 'hello world\n', exit_code: 0, timed_out: false });
    });

    it('returns a non-zero exit as data, with stdout and stderr in one output', async () => {
      const res = await exec({ device: 'ex-1', command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
      expect(res.status).toBe(200);
      expect(res.body.exit_code).toBe(3);
      expect(res.body.output).toContain('out\n');
      expect(res.body.output).toContain('err\n');
    });

    it('feeds stdin', async () => {
      const res = await exec({ device: 'ex-1', command: ['cat'], stdin: 'piped ✓\n' });
      expect(res.body).toEqual({ output: 'piped ✓\n', exit_code: 0, timed_out: false });
    });

    it("reports a device handler's failure after it answered as that error, not as an offline device", async () => {
      // The runtime's own StreamRouter, with an exec handler that fails once output has started.
      const router = new StreamRouter(
        {
          exec: async (stream) => {
            stream.respond({ ':status': 200 });
            stream.write(encodeDataFrames(FrameType.STDOUT, Buffer.from('partial\n'))[0]);
            throw new Error('disk on fire');
          },
        },
        new OperationRegistry(),
        new RuntimeLogger('error', () => undefined),
      );
      await device('ex-fail');
      const failing = await connectRuntimeStub({
        carrier,
        port: server.tunnel!.port,
        ca: server.tunnel!.caFile,
        apiKey: keys.get('ex-fail')!,
        handlers: { exec: (stream, args) => router.handle(stream, { ':method': 'POST', ':path': '/v1/exec', 'svc-args': encodeStreamArgs(args) }) },
      });
      stubs.push(failing);
      await eventually('ex-fail online', async () => (await status('ex-fail')).status === 'online');
      expectError(await exec({ device: 'ex-fail', command: ['true'] }), 500, 'INTERNAL', 'The runtime failed to run the operation');
      const lines = await ndjson({ device: 'ex-fail', command: ['true'] });
      expect(lines).toEqual([{ stream: 'stdout', data: 'partial\n' }, { error: 'The runtime failed to run the operation', code: 'INTERNAL' }]);
    });

    it('reports a timeout', async () => {
      const res = await exec({ device: 'ex-1', command: ['sleep', '30'], timeout_secs: 0.5 });
      expect(res.body).toMatchObject({ timed_out: true, exit_code: 137 });
    });

    it('runs a batch and answers per device, with errors per item', async () => {
      const res = await exec({ devices: ['ex-1', 'ex-2', 'ex-off', 'nope'], command: ['echo', 'hi'] });
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        { device: 'ex-1', output: 'hi\n', exit_code: 0, timed_out: false },
        { device: 'ex-2', output: 'hi\n', exit_code: 0, timed_out: false },
        { device: 'ex-off', error: 'Device is offline', code: 'DEVICE_OFFLINE' },
        { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
      ]);
    });

    it('streams a batch as NDJSON lines tagged with their device, failures included', async () => {
      const lines = await ndjson({ devices: ['ex-1', 'ex-off', 'nope'], command: ['echo', 'hi'] });
      expect(lines).toHaveLength(4);
      expect(lines).toEqual(
        expect.arrayContaining([
          { device: 'ex-1', stream: 'stdout', data: 'hi\n' },
          { device: 'ex-1', exit_code: 0, timed_out: false },
          { device: 'ex-off', error: 'Device is offline', code: 'DEVICE_OFFLINE' },
          { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
        ]),
      );
      expect(lines.findIndex((l) => 'stream' in l)).toBeLessThan(lines.findIndex((l) => 'exit_code' in l));
    });

    it('answers an NDJSON request for an unreachable device with an ordinary error', async () => {
      const res = await fetch(`${server.url}/api/exec`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
        body: JSON.stringify({ device: 'ex-off', command: ['true'] }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'DEVICE_OFFLINE' });
    });

    it('streams NDJSON lines in the order they are produced, then the exit line', async () => {
      const lines = await ndjson({ device: 'ex-1', command: ['sh', '-c', 'echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three; exit 4'] });
      expect(lines).toEqual([
        { stream: 'stdout', data: 'one\n' },
        { stream: 'stderr', data: 'two\n' },
        { stream: 'stdout', data: 'three\n' },
        { exit_code: 4, timed_out: false },
      ]);
    });

    it('records an audit entry with the argv and never the stdin', async () => {
      await exec({ device: 'ex-2', command: ['cat'], stdin: 'secret-stdin-text' });
      const { logs } = (await fleet.user('alice').run('device_audit_logs', { device: 'ex-2' })) as { logs: unknown[] };
      expect(logs).toContainEqual(expect.objectContaining({ action: 'device.exec', user: 'alice@tunnel.test', details: 'exec: cat' }));
      expect(JSON.stringify(logs)).not.toContain('secret-stdin-text');
    });

    it('refuses a viewer (403), hides the device from a stranger (404) and says DEVICE_OFFLINE without a tunnel (503)', async () => {
      expectError(await exec({ device: 'ex-1', command: ['true'] }, bob), 403, 'FORBIDDEN');
      expectError(await exec({ device: 'ex-1', command: ['true'] }, mallory), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      expectError(await exec({ device: 'ex-off', command: ['true'] }), 503, 'DEVICE_OFFLINE');
    });

    it.each([
      ['no token', {}, { device: 'ex-1', command: ['true'] }, 401],
      ['an empty command', null, { device: 'ex-1', command: [] }, 400],
      ['a command that is not an array', null, { device: 'ex-1', command: 'true' }, 400],
      ['both device and devices', null, { device: 'ex-1', devices: ['ex-2'], command: ['true'] }, 400],
      ['a negative timeout', null, { device: 'ex-1', command: ['true'], timeout_secs: -1 }, 400],
      ['an empty program', null, { device: 'ex-1', command: [''] }, 400],
    ])('refuses %s', async (_name, caller, body, statusCode) => {
      const res = await exec(body, caller ?? alice);
      expect(res.status).toBe(statusCode);
    });
  });
});

function encodeLengthPrefixed(value: object): Buffer {
  const body = Buffer.from(JSON.stringify(value));
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(body.length, 0);
  return Buffer.concat([prefix, body]);
}

/** Sends raw hello bytes over the carrier and resolves with the server's answer frame. */
async function rawHello(carrier: 'tcp' | 'quic', port: number, caFile: string, bytes: Buffer, alpn = [TUNNEL_ALPN]): Promise<unknown> {
  const socket: Duplex = carrier === 'quic' ? await dialQuicStream({ port, caFile }) : connect({ host: '127.0.0.1', servername: 'localhost', port, ca: readFileSync(caFile), ALPNProtocols: alpn });
  socket.on('error', () => undefined);
  try {
    if (carrier === 'tcp') await once(socket, 'secureConnect');
    socket.write(bytes);
    return await readHello(socket);
  } finally {
    socket.destroy();
  }
}
