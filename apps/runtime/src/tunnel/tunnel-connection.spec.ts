import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http2 from 'node:http2';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, Server, TLSSocket } from 'node:tls';
import { encodeHello, encodeStreamArgs, Frame, FrameDecoder, FrameType, HelloResponse, readHello, TUNNEL_ALPN } from '@svc/common';
import { handleExec } from '../handlers/exec-handler';
import { RuntimeLogger } from '../logging/runtime-logger';
import { OperationRegistry } from '../supervisor/operation-registry';
import { StreamRouter } from './stream-router';
import { loadTunnelTrust, TunnelTrust } from './tls-trust';
import { openTunnel, TunnelRefusedError } from './tunnel-connection';

/**
 * The runtime's tunnel against a minimal relay written from the protocol text: TLS with ALPN
 * svc-tunnel/1, the hello, then the relay as HTTP/2 client over the same socket.
 */
describe('tunnel connection', () => {
  let dir: string;
  let certFile: string;
  let pin: string;
  let relay: FakeRelay;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tunnel-'));
    certFile = join(dir, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', certFile, '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ], { stdio: 'ignore' });
    pin = new X509Certificate(readFileSync(certFile)).fingerprint256.replace(/:/g, '').toLowerCase();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => relay?.close());

  const operations = new OperationRegistry();
  const log = new RuntimeLogger('error');
  const router = new StreamRouter({ exec: handleExec }, operations, log);
  const open = (trust: TunnelTrust, apiKey = 'svc_good') =>
    openTunnel({ target: { host: '127.0.0.1', port: relay.port }, carrier: 'tcp', trust, apiKey, runtime: { version: '0.1.0', boot_id: 'b' }, router, operations, log });

  it('trusts the server through a CA file, says hello, then serves streams the relay opens', async () => {
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 10 });
    const tunnel = await open(loadTunnelTrust(certFile, undefined));
    expect(tunnel.deviceId).toBe('pi-1');
    expect(relay.hellos).toEqual([{ v: 1, api_key: 'svc_good', runtime: { version: '0.1.0', boot_id: 'b' } }]);
    expect(await relay.exec(['echo', 'through the tunnel'])).toBe('through the tunnel\n');
    await tunnel.close();
    expect(await tunnel.closed).toBe('shutdown');
  });

  it('closes on shutdown even when an operation never settles, after the grace, and says so', async () => {
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 10 });
    const lines: string[] = [];
    const ops = new OperationRegistry();
    const tunnel = await openTunnel({
      target: { host: '127.0.0.1', port: relay.port }, carrier: 'tcp', trust: loadTunnelTrust(certFile, undefined), apiKey: 'svc_good',
      runtime: { version: '0.1.0', boot_id: 'b' }, router: new StreamRouter({ exec: handleExec }, ops, log), operations: ops,
      log: new RuntimeLogger('warn', (line) => lines.push(line)),
    });
    const stuck = { aborted: '', abort: (reason: string) => (stuck.aborted = reason), done: new Promise<void>(() => undefined) };
    ops.add(stuck);
    await tunnel.close();
    expect(await tunnel.closed).toBe('shutdown');
    expect(stuck.aborted).toBe('shutdown');
    expect(lines.join('')).toContain('"msg":"operations still running at shutdown; closing the tunnel anyway","operations":1');
  });

  it('trusts the server through a pinned fingerprint', async () => {
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 10 });
    const tunnel = await open(loadTunnelTrust(undefined, pin));
    expect(await relay.exec(['echo', 'pinned'])).toBe('pinned\n');
    await tunnel.close();
  });

  it.each([
    ['no CA file (platform trust store only)', () => loadTunnelTrust(undefined, undefined), /TLS connection to 127.0.0.1:\d+ failed: self-signed certificate/],
    ['a wrong pin', () => loadTunnelTrust(undefined, 'ab'.repeat(32)), /does not match the pinned/],
  ])('sends nothing, not even the key, to a server it does not trust: %s', async (_name, trust, message) => {
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 10 });
    await expect(open(trust())).rejects.toThrow(message);
    expect(await relay.bytesReceivedAfterHandshake()).toBe(0);
  });

  it('reports a refused key as TunnelRefusedError', async () => {
    relay = await FakeRelay.start(dir, { v: 1, ok: false, error: 'unauthorized' });
    await expect(open(loadTunnelTrust(certFile, undefined))).rejects.toBeInstanceOf(TunnelRefusedError);
  });

  it('declares the tunnel dead when the server stops sending keep-alives', async () => {
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 0.05 });
    const tunnel = await open(loadTunnelTrust(certFile, undefined));
    expect(await tunnel.closed).toMatch(/no keep-alive from the server/);
  });

  it('stops in-flight commands on shutdown, reports how they ended, then closes', async () => {
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 10 });
    const tunnel = await open(loadTunnelTrust(certFile, undefined));
    const running = relay.execFrames(['sh', '-c', 'echo $$; sleep 100 & sleep 100']);
    const pgid = Number((await running.firstStdout).trim());
    await tunnel.close();
    expect(await running.exit).toEqual({ exit_code: null, signal: 'SIGTERM', timed_out: false });
    expect(operations.size).toBe(0);
    // The group's last members may linger a moment as zombies until their reaper collects them.
    const deadline = Date.now() + 10_000;
    while (groupExists(pgid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(groupExists(pgid)).toBe(false);
    expect(await tunnel.closed).toBe('shutdown');
  });

  it('stays up while pings arrive', async () => {
    // Dead after 0.6 s without a ping; the relay pings every 0.1 s throughout, including while the
    // exec spawns (which alone took over 0.15 s on a loaded machine), for well past that window.
    relay = await FakeRelay.start(dir, { v: 1, ok: true, device_id: 'pi-1', heartbeat_secs: 0.2 });
    const tunnel = await open(loadTunnelTrust(certFile, undefined));
    let pinging = true;
    const pinger = (async () => {
      while (pinging) {
        await relay.ping();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await relay.exec(['echo', 'still here'])).toBe('still here\n');
    } finally {
      pinging = false;
      await pinger;
    }
    await tunnel.close();
    expect(await tunnel.closed).toBe('shutdown');
  });
});

class FakeRelay {
  readonly hellos: unknown[] = [];
  private session: http2.ClientHttp2Session | undefined;
  private sockets: TLSSocket[] = [];
  private received = 0;

  private constructor(private readonly server: Server) {}

  static async start(dir: string, answer: HelloResponse): Promise<FakeRelay> {
    const server = createServer({ cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')), ALPNProtocols: [TUNNEL_ALPN] });
    const relay = new FakeRelay(server);
    const sessionReady = new Promise<void>((resolve) => (relay.onSession = resolve));
    server.on('secureConnection', async (socket: TLSSocket) => {
      relay.sockets.push(socket);
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => (relay.received += chunk.length));
      relay.hellos.push(await readHello(socket).catch(() => undefined));
      // HTTP/2 must not take over the socket while a write is in flight (node_http2.cc asserts).
      await new Promise((resolve) => socket.write(encodeHello(answer), resolve));
      if (!answer.ok) return socket.end();
      relay.session = http2.connect('http://device', { createConnection: () => socket });
      relay.session.on('error', () => undefined);
      relay.onSession();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay.sessionReady = sessionReady;
    return relay;
  }

  private onSession: () => void = () => undefined;
  private sessionReady: Promise<void> = Promise.resolve();

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async bytesReceivedAfterHandshake(): Promise<number> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.received;
  }

  async ping(): Promise<void> {
    await this.sessionReady;
    await new Promise((resolve, reject) => this.session!.ping((error) => (error ? reject(error) : resolve(undefined))));
  }

  async exec(command: string[]): Promise<string> {
    await this.sessionReady;
    const req = this.session!.request({ ':method': 'POST', ':path': '/v1/exec', 'svc-args': encodeStreamArgs({ command }) });
    req.end();
    let stdout = '';
    for await (const frame of req.pipe(new FrameDecoder()) as AsyncIterable<Frame>) {
      if (frame.type === FrameType.STDOUT) stdout += frame.payload.toString();
    }
    return stdout;
  }

  /** Starts an exec and exposes its first stdout chunk and its EXIT frame as they arrive. */
  execFrames(command: string[]): { firstStdout: Promise<string>; exit: Promise<unknown> } {
    let onStdout!: (text: string) => void;
    let onExit!: (body: unknown) => void;
    const firstStdout = new Promise<string>((resolve) => (onStdout = resolve));
    const exit = new Promise<unknown>((resolve) => (onExit = resolve));
    void this.sessionReady.then(() => {
      const req = this.session!.request({ ':method': 'POST', ':path': '/v1/exec', 'svc-args': encodeStreamArgs({ command }) });
      req.end();
      req.pipe(new FrameDecoder()).on('data', (frame: Frame) => {
        if (frame.type === FrameType.STDOUT) onStdout(frame.payload.toString());
        if (frame.type === FrameType.EXIT) onExit(JSON.parse(frame.payload.toString()));
      });
    });
    return { firstStdout, exit };
  }

  close(): void {
    this.session?.destroy();
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
