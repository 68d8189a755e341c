import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TunnelAcceptor } from '../tunnel-carrier';
import { deriveQuinnIdentity, loadQuinn, QuinnConnection, quinnIdentityFromSeed } from '@svc/common';
import { QuicCarrier, QuicPortInUseError } from './quic.carrier';

describe('QuicCarrier', () => {
  let dir: string;
  let key: string;
  const acceptor: TunnelAcceptor = { authenticate: async () => null, accepted: () => undefined, heartbeatSecs: 10 };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-quic-carrier-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-keyout', 'key.pem', '-out', 'cert.pem', '-subj', '/CN=localhost'], { cwd: dir, stdio: 'ignore' });
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('binds an ephemeral UDP port', async () => {
    const carrier = new QuicCarrier({ host: '127.0.0.1', port: 0, identity: deriveQuinnIdentity(key, 'test'), handshakeTimeoutMs: 10_000, caps: { perAddress: 10, total: 10 } });
    const { port } = await carrier.start(acceptor);
    expect(port).toBeGreaterThan(0);
    await carrier.close();
  });

  it('reports a UDP port that is taken as QuicPortInUseError', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    const carrier = new QuicCarrier({ host: '127.0.0.1', port: taken.address().port, identity: deriveQuinnIdentity(key, 'test'), handshakeTimeoutMs: 10_000, caps: { perAddress: 10, total: 10 } });
    await expect(carrier.start(acceptor)).rejects.toBeInstanceOf(QuicPortInUseError);
    await carrier.close();
    taken.close();
  });

  /**
   * An idle tunnel must cost the server nothing between the runtime's keep-alives. The binding
   * reads keepAliveInterval 0 as a PING for every packet received: each idle connection then
   * ping-ponged at the ACK delay (~760 server PINGs/s, ~10 ms of server CPU per second each).
   * Counted, not timed: by the time each client has sent 3 keep-alives, the server sent (almost) none.
   */
  it('sends no PINGs of its own on idle connections (the runtimes keep them alive)', async () => {
    const carrier = new QuicCarrier({ host: '127.0.0.1', port: 0, identity: deriveQuinnIdentity(key, 'test'), handshakeTimeoutMs: 120_000, caps: { perAddress: 10, total: 10 } });
    const { port } = await carrier.start(acceptor);
    const quinn = loadQuinn();
    const settings = { handshakeTimeout: 10_000, maxIdleTimeout: 15_000, keepAliveInterval: 200, maxConcurrentStreamLimit: 1, maxStreamData: 1 << 20, maxConnectionData: 1 << 21, receiveBufferSize: 1 << 20, sendBufferSize: 1 << 20 };
    const client = new quinn.Client(new quinn.QuinnConfig({ ...settings, privateKeyProto: quinnIdentityFromSeed(randomBytes(32)).privateKeyProto }), 0);
    const connections: QuinnConnection[] = [];
    try {
      for (let i = 0; i < 3; i++) connections.push(await client.outboundConnection('127.0.0.1', port));
      const pings = () => connections.map((connection) => connection.stats()).map((stats) => ({ sent: stats.frameTxPing, fromServer: stats.frameRxPing }));
      // PINGs a peer may send in loss recovery (a probe when an ACK is late on a loaded machine), not as keep-alives.
      const probes = 5;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
        if (pings().every((count) => count.sent >= 3 || count.fromServer > probes)) break;
      }
      for (const count of pings()) {
        expect(count.fromServer).toBeLessThanOrEqual(probes);
        expect(count.sent).toBeGreaterThanOrEqual(3);
      }
    } finally {
      for (const connection of connections) connection.abort();
      client.abort();
      await carrier.close();
    }
  }, 90_000);
});
