/**
 * The QUIC carrier with one QUIC stream per operation, between the real relay carrier and the
 * real runtime tunnel code in this process: the server sees one stream per operation, and a
 * forward stuck behind a target that never reads does not hold up an exec on the same tunnel.
 * Not on useFleet: the relay's QUIC carrier and the runtime's tunnel code alone, in this process.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  encodeHello,
  Frame,
  FrameDecoder,
  FrameType,
  loadQuinn,
  parseHelloResponse,
  QuinnDuplex,
  quinnIdentityFromSeed,
  readHello,
  TUNNEL_OPS,
  TUNNEL_PROTOCOL_VERSION,
} from '@svc/common';
import { eventually } from './fixtures/eventually';
import { QuicCarrier } from '../apps/server/src/relay/quic/quic.carrier';
import { quicIdentity } from '../apps/server/src/relay/quic/quic-identity';
import { QuicTunnelSession } from '../apps/server/src/relay/quic/quic-tunnel-session';
import type { TunnelAcceptor, TunnelSession, TunnelStream } from '../apps/server/src/relay/tunnel-carrier';
import { handleExec } from '../apps/runtime/src/handlers/exec-handler';
import { handleForwardTcp } from '../apps/runtime/src/handlers/forward-handler';
import { RuntimeLogger } from '../apps/runtime/src/logging/runtime-logger';
import { OperationRegistry } from '../apps/runtime/src/supervisor/operation-registry';
import { StreamRouter } from '../apps/runtime/src/tunnel/stream-router';
import { loadTunnelTrust } from '../apps/runtime/src/tunnel/tls-trust';
import { OpenTunnel, openTunnel } from '../apps/runtime/src/tunnel/tunnel-connection';

describe('QUIC carrier: one QUIC stream per operation', () => {
  let dir: string;
  let carrier: QuicCarrier;
  let port: number;
  let announced: ReturnType<typeof quicIdentity>['announced'];
  let sessions: TunnelSession[];
  let tunnel: OpenTunnel | undefined;
  let sink: Server;
  const sinkSockets: Socket[] = [];

  const acceptor: TunnelAcceptor = {
    authenticate: async (hello) => (hello.api_key === 'svc_good' ? { deviceId: 'pi-1', startedAt: performance.now(), revocationMark: 0 } : null),
    accepted: (session) => sessions.push(session),
    heartbeatSecs: 10,
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-quic-streams-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-keyout', 'key.pem', '-out', 'cert.pem', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { cwd: dir, stdio: 'ignore' });
    const quic = quicIdentity({ cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') });
    announced = quic.announced;
    carrier = new QuicCarrier({ host: '127.0.0.1', port: 0, identity: quic.identity, handshakeTimeoutMs: 10_000, caps: { perAddress: 10, total: 10 } });
    ({ port } = await carrier.start(acceptor));
    // A target that accepts and never reads: a forward to it fills its windows and stays stuck.
    sink = createServer((socket) => {
      socket.pause();
      socket.on('error', () => undefined); // the forward's abort resets it
      sinkSockets.push(socket);
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  });
  beforeEach(() => (sessions = []));
  afterEach(async () => {
    await tunnel?.close();
    tunnel = undefined;
  });
  afterAll(async () => {
    for (const socket of sinkSockets) socket.destroy();
    sink.close();
    await carrier.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const operations = new OperationRegistry();
  const log = new RuntimeLogger('error');
  const router = new StreamRouter({ exec: handleExec, 'forward/tcp': handleForwardTcp }, operations, log);

  async function connectRuntime(): Promise<TunnelSession> {
    tunnel = await openTunnel({
      target: { host: '127.0.0.1', port, quic: announced },
      carrier: 'quic',
      trust: loadTunnelTrust(join(dir, 'cert.pem'), undefined),
      apiKey: 'svc_good',
      runtime: { version: '0.1.0', boot_id: 'b' },
      router,
      operations,
      log,
    });
    await waitFor(() => sessions.length === 1);
    return sessions[0];
  }

  it('opens one QUIC stream per operation, and a stuck forward does not hold up an exec', async () => {
    const session = await connectRuntime();
    expect(session).toBeInstanceOf(QuicTunnelSession);
    const quic = session as QuicTunnelSession;
    const target = { host: '127.0.0.1', port: (sink.address() as AddressInfo).port };
    const forwards = await Promise.all(Array.from({ length: 5 }, () => session.openStream({ op: TUNNEL_OPS.forwardTcp, args: target, requestId: 'f', actor: 'test' })));
    expect(quic.openStreams).toBe(5);
    expect(tunnel!.busy()).toBe(true);
    // Push into one forward as fast as it takes bytes, until its windows are full and it waits.
    const stuck = forwards[0].body;
    const chunk = Buffer.alloc(256 * 1024);
    let pushed = 0;
    const pump = () => {
      do pushed += chunk.length;
      while (stuck.write(chunk));
    };
    stuck.on('drain', pump);
    pump();
    let seen = -1;
    await waitFor(() => {
      const still = pushed === seen;
      seen = pushed;
      return pushed >= 8 * 1024 * 1024 && still;
    }, 200);
    const output = await exec(session, ['echo', 'not held up']);
    expect(output).toBe('not held up\n');
    expect(stuck.writableLength).toBeGreaterThan(0); // still waiting for room the target never makes
    expect(quic.openStreams).toBe(5); // the exec's stream came and went
    for (const forward of forwards) forward.abort();
    await waitFor(() => quic.openStreams === 0 && !tunnel!.busy());
  });

  it('stops an exec the server cancelled while the runtime waits on neither direction (stdin ended, no output)', async () => {
    const session = await connectRuntime();
    const stream = await session.openStream({ op: TUNNEL_OPS.exec, args: { command: ['sleep', '60'], timeout_secs: 120, stdin: false }, requestId: 'e', actor: 'test' });
    stream.body.end();
    stream.body.resume();
    await waitFor(() => tunnel!.busy() && operations.size > 0);
    stream.abort();
    await waitFor(() => !tunnel!.busy() && operations.size === 0);
  });

  it('closes the tunnel with the reason, which the runtime reports', async () => {
    const session = await connectRuntime();
    await session.close('device removed');
    expect(await tunnel!.closed).toBe('server closed the tunnel: device removed');
    tunnel = undefined;
  });

  it('answers a runtime that does not ask for per-operation streams without them (reverse HTTP/2 follows)', async () => {
    const quinn = loadQuinn();
    const client = new quinn.Client(new quinn.QuinnConfig({ privateKeyProto: quinnIdentityFromSeed(randomBytes(32)).privateKeyProto, handshakeTimeout: 10_000, maxIdleTimeout: 15_000, keepAliveInterval: 5000, maxConcurrentStreamLimit: 0, maxStreamData: 1 << 20, maxConnectionData: 1 << 21, receiveBufferSize: 1 << 20, sendBufferSize: 1 << 20 }), 0);
    const connection = await client.outboundConnection('127.0.0.1', port);
    const socket = new QuinnDuplex(await connection.outboundStream(), '127.0.0.1');
    const answered = readHello(socket);
    socket.write(encodeHello({ v: TUNNEL_PROTOCOL_VERSION, api_key: 'svc_good', runtime: { version: '0.0.9', boot_id: 'old' } }));
    const answer = parseHelloResponse(await answered);
    expect(answer).toEqual({ v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 10 });
    await waitFor(() => sessions.length === 1);
    expect(sessions[0]).not.toBeInstanceOf(QuicTunnelSession);
    const closed = new Promise((resolve) => sessions[0].onClosed(resolve));
    socket.destroy();
    connection.abort();
    client.abort();
    await closed;
  });
});

async function exec(session: TunnelSession, command: string[]): Promise<string> {
  const stream: TunnelStream = await session.openStream({ op: TUNNEL_OPS.exec, args: { command, timeout_secs: 30, stdin: false }, requestId: 'e', actor: 'test' });
  stream.body.end();
  const frames: Frame[] = [];
  for await (const frame of stream.body.pipe(new FrameDecoder()) as AsyncIterable<Frame>) frames.push(frame);
  expect(frames.at(-1)?.type).toBe(FrameType.EXIT);
  return Buffer.concat(frames.filter((frame) => frame.type === FrameType.STDOUT).map((frame) => frame.payload)).toString();
}

/** The shared `eventually`, polled often by default: these conditions are in-process and change fast. */
function waitFor(condition: () => boolean, intervalMs = 20): Promise<true> {
  return eventually(`the condition ${condition.toString().replace(/\s+/g, ' ')}`, condition, { intervalMs });
}
