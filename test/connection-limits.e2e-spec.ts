/**
 * UNIFIED_PORT under a flood of unauthenticated connections (docs/security.md, "Connection
 * limits"): silent TCP, a partial TLS ClientHello, a TLS connection that never sends its hello, and
 * idle HTTP/2 client connections are all closed once the handshake deadline or the client idle
 * timeout passes; one address cannot hold more than its cap; and a runtime still gets in meanwhile.
 * Floods come from other loopback addresses (127.0.0.2, 127.0.0.3) than the runtime (127.0.0.1).
 * Not on useFleet, raw connections on purpose: servers with their own tunnel limits (one started inside a test) under floods no client makes.
 */
import { readFileSync } from 'node:fs';
import { connect as h2connect, ClientHttp2Session } from 'node:http2';
import { connect as netConnect, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { TUNNEL_ALPN } from '@svc/common';

import { startIdentityProvider, IdentityProviderHandle } from './fixtures/oidc';
import { registerDevice, startTestServer, TestServer } from './fixtures/test-server';
import { connectRuntimeStub } from './fixtures/tunnel-runtime-stub';
import { dialQuicStream } from './fixtures/quic-dial';
import { eventually } from './fixtures/eventually';
import { countClosed, rawConnection } from './fixtures/raw-connection';

const FLOOD = 150;
/** A TLS 1.3 ClientHello record header announcing 512 bytes, followed by only a few of them. */
const PARTIAL_CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

/** A TCP connection to the server from `localAddress`, for TLS to run on. */
function fromAddress(port: number, localAddress: string): Socket {
  return netConnect({ host: '127.0.0.1', port, localAddress });
}

describe('UNIFIED_PORT connection limits', () => {
  let idp: IdentityProviderHandle;
  let server: TestServer;
  const open: { destroy(): void }[] = [];

  beforeAll(async () => {
    idp = await startIdentityProvider();
    server = await startTestServer(idp, {
      UNIFIED_PORT: '0',
      TUNNEL_HANDSHAKE_TIMEOUT_MS: '1500',
      TUNNEL_CLIENT_IDLE_TIMEOUT_MS: '1500',
      TUNNEL_MAX_CONNECTIONS_PER_ADDRESS: '1000',
    });
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await server?.close();
    await idp?.stop();
  });

  async function runtimeGetsIn(deviceId: string, port: number, target: TestServer): Promise<void> {
    const owner = await target.login('ops@limits.test');
    const apiKey = await registerDevice(target, deviceId, 'user:ops@limits.test', owner);
    const stub = await connectRuntimeStub({ port, ca: target.tunnel!.caFile, apiKey });
    open.push({ destroy: () => stub.close() });
    expect(stub.hello).toMatchObject({ ok: true, device_id: deviceId });
    await eventually('the device online', async () => (await target.api.get(`/devices/${deviceId}/status`, owner)).body.status === 'online');
  }

  it('closes silent TCP connections and partial ClientHellos once the handshake deadline passes, while a runtime still connects', async () => {
    const port = server.tunnel!.port;
    const silent = Array.from({ length: FLOOD }, () => rawConnection(port, '127.0.0.2'));
    const partial = Array.from({ length: FLOOD }, () => rawConnection(port, '127.0.0.2', PARTIAL_CLIENT_HELLO));
    open.push(...[...silent, ...partial].map((t) => t.socket));
    await eventually('the flood connected', () => [...silent, ...partial].every((t) => t.socket.readyState === 'open' || t.closed));

    await runtimeGetsIn('limits-dev-1', port, server);

    await eventually('every silent connection closed', () => countClosed(silent) === FLOOD, { timeoutMs: 30_000 });
    await eventually('every partial ClientHello closed', () => countClosed(partial) === FLOOD, { timeoutMs: 30_000 });
  });

  it('closes a TLS connection that never sends its hello', async () => {
    const socket = tlsConnect({ socket: fromAddress(server.tunnel!.port, '127.0.0.2'), servername: 'localhost', ca: readFileSync(server.tunnel!.caFile), ALPNProtocols: [TUNNEL_ALPN] });
    open.push(socket);
    socket.on('error', () => undefined);
    let secured = false;
    let closed = false;
    socket.once('secureConnect', () => (secured = true));
    socket.once('close', () => (closed = true));
    await eventually('the connection closed', () => closed, { timeoutMs: 30_000 });
    expect(secured).toBe(true);
  });

  it('closes idle HTTP/2 client connections after the idle timeout', async () => {
    const ca = readFileSync(server.tunnel!.caFile);
    const sessions: { session: ClientHttp2Session; closed: boolean }[] = [];
    for (let i = 0; i < 50; i++) {
      const session = h2connect(`https://localhost:${server.tunnel!.port}`, {
        createConnection: () => tlsConnect({ socket: fromAddress(server.tunnel!.port, '127.0.0.2'), servername: 'localhost', ca, ALPNProtocols: ['h2'] }),
      });
      const tracked = { session, closed: false };
      session.on('error', () => undefined);
      session.on('close', () => (tracked.closed = true));
      sessions.push(tracked);
      open.push(session);
    }
    await eventually('the sessions connected', () => sessions.every((s) => !s.session.connecting || s.closed));
    await eventually('every idle session closed', () => countClosed(sessions) === sessions.length, { timeoutMs: 30_000 });
  });

  describe('caps', () => {
    let capped: TestServer;

    beforeAll(async () => {
      capped = await startTestServer(idp, { UNIFIED_PORT: '0', TUNNEL_HANDSHAKE_TIMEOUT_MS: '120000', TUNNEL_MAX_CONNECTIONS_PER_ADDRESS: '40' });
    });
    afterAll(async () => capped?.close());

    it('refuses connections over the per-address cap, and still admits other addresses', async () => {
      const port = capped.tunnel!.port;
      const flood = Array.from({ length: 100 }, () => rawConnection(port, '127.0.0.3'));
      open.push(...flood.map((t) => t.socket));
      await eventually('60 refused', () => countClosed(flood) === 60, { timeoutMs: 30_000 });

      await runtimeGetsIn('limits-dev-2', port, capped);
      expect(countClosed(flood)).toBe(60);

      const again = rawConnection(port, '127.0.0.3');
      open.push(again.socket);
      await eventually('one more refused', () => again.closed, { timeoutMs: 30_000 });
      expect(countClosed(flood)).toBe(60);
    });

    it('refuses QUIC connections over the per-address cap too', async () => {
      const quicCapped = await startTestServer(idp, { UNIFIED_PORT: '0', TUNNEL_HANDSHAKE_TIMEOUT_MS: '120000', TUNNEL_MAX_CONNECTIONS_PER_ADDRESS: '2' });
      const dial = async () => {
        const stream = await dialQuicStream({ port: quicCapped.tunnel!.port, caFile: quicCapped.tunnel!.caFile });
        stream.on('error', () => undefined);
        return stream;
      };
      try {
        const held = [await dial(), await dial()];
        open.push(...held);
        const heldClosed = held.map(() => false);
        held.forEach((stream, i) => stream.once('close', () => (heldClosed[i] = true)));
        // The third is refused: its dial fails, or its stream closes at once.
        const third = await dial().then(
          (stream) => {
            open.push(stream);
            return new Promise<string>((resolve) => {
              if (stream.destroyed) resolve('closed');
              stream.once('close', () => resolve('closed'));
              setTimeout(() => resolve('still open after 30 s'), 30_000).unref();
            });
          },
          () => 'failed',
        );
        expect(['closed', 'failed']).toContain(third);
        expect(heldClosed).toEqual([false, false]);
      } finally {
        await quicCapped.close();
      }
    });
  });
});
