import { connect as h2connect, ClientHttp2Session } from 'node:http2';
import { createServer, Server, TLSSocket } from 'node:tls';
import { Logger } from '@nestjs/common';
import {
  encodeHello,
  HELLO_UNAUTHORIZED,
  HELLO_UNAVAILABLE,
  HELLO_UNSUPPORTED_VERSION,
  HelloRequest,
  parseHelloRequest,
  readHello,
  TUNNEL_ALPN,
  TUNNEL_HTTP2,
  TUNNEL_LIMITS,
  TUNNEL_PROTOCOL_VERSION,
  UnsupportedHelloVersionError,
} from '@svc/common';
import type { TunnelAcceptor, TunnelAdmission, TunnelCarrier } from '../tunnel-carrier';
import { H2TunnelSession } from './h2-tunnel-session';

export interface TlsTcpCarrierOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
}

/** A refused runtime gets this long to read the refusal before the socket is destroyed. */
const REFUSAL_LINGER_MS = 2000;
/** HTTP/2 buffers up to both windows per session; nghttp2's default 10 MB cap is below that. */
const MAX_SESSION_MEMORY_MB = 64;

/**
 * Carrier 2 (TLS 1.3 over TCP on UNIFIED_PORT): TLS with ALPN svc-tunnel/1, then the hello, then
 * reverse HTTP/2 on the same socket (the runtime is the HTTP/2 server).
 */
export class TlsTcpCarrier implements TunnelCarrier {
  readonly name = 'tcp' as const;
  private server: Server | null = null;
  private readonly sockets = new Set<TLSSocket>();
  private readonly logger = new Logger('TlsTcpCarrier');

  constructor(private readonly options: TlsTcpCarrierOptions) {}

  start(acceptor: TunnelAcceptor): Promise<{ port: number }> {
    const server = createServer({
      cert: this.options.cert,
      key: this.options.key,
      minVersion: 'TLSv1.3',
      ALPNProtocols: [TUNNEL_ALPN],
      handshakeTimeout: TUNNEL_LIMITS.helloTimeoutMs,
    });
    server.on('secureConnection', (socket) => this.accept(socket, acceptor));
    server.on('tlsClientError', (err) => this.logger.debug(`TLS handshake failed: ${err.message}`));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        server.on('error', (err) => this.logger.error(`tunnel listener: ${err.message}`));
        resolve({ port: (server.address() as { port: number }).port });
      });
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async accept(socket: TLSSocket, acceptor: TunnelAcceptor): Promise<void> {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', (err) => this.logger.debug(`tunnel socket from ${socket.remoteAddress}: ${err.message}`));
    if (socket.alpnProtocol !== TUNNEL_ALPN) {
      socket.destroy();
      return;
    }
    let raw: unknown;
    try {
      raw = await readHello(socket);
    } catch (err) {
      this.logger.debug(`no hello from ${socket.remoteAddress}: ${(err as Error).message}`);
      socket.destroy();
      return;
    }
    let hello: HelloRequest;
    try {
      hello = parseHelloRequest(raw);
    } catch (err) {
      this.refuse(socket, err instanceof UnsupportedHelloVersionError ? HELLO_UNSUPPORTED_VERSION : HELLO_UNAUTHORIZED);
      return;
    }
    let admission: TunnelAdmission | null;
    try {
      admission = await acceptor.authenticate(hello);
    } catch (err) {
      this.logger.warn(`could not check a runtime's key: ${(err as Error).message}`);
      this.refuse(socket, HELLO_UNAVAILABLE);
      return;
    }
    if (admission === null) {
      this.refuse(socket, HELLO_UNAUTHORIZED);
      return;
    }
    const { deviceId } = admission;
    // HTTP/2 takes over the socket's native handle: a write still in flight then completes into
    // the HTTP/2 session and aborts the process (node_http2.cc is_write_in_progress), so wait.
    const written = await new Promise<boolean>((resolve) => {
      if (socket.destroyed) resolve(false);
      else socket.write(encodeHello({ v: TUNNEL_PROTOCOL_VERSION, ok: true, device_id: deviceId, heartbeat_secs: acceptor.heartbeatSecs }), (err) => resolve(!err));
    });
    if (!written || socket.destroyed) return;
    const session = new H2TunnelSession(deviceId, hello.runtime, socket.remoteAddress ?? 'unknown', this.startHttp2(socket), acceptor.heartbeatSecs);
    acceptor.accepted(session, admission);
  }

  private refuse(socket: TLSSocket, error: string): void {
    if (socket.destroyed) return;
    socket.end(encodeHello({ v: TUNNEL_PROTOCOL_VERSION, ok: false, error }));
    setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  }

  private startHttp2(socket: TLSSocket): ClientHttp2Session {
    const session = h2connect('http://device', {
      createConnection: () => socket,
      settings: { initialWindowSize: TUNNEL_HTTP2.initialWindowSize, enablePush: false },
      maxSessionMemory: MAX_SESSION_MEMORY_MB,
    });
    session.on('connect', () => session.setLocalWindowSize(TUNNEL_HTTP2.sessionWindowSize));
    return session;
  }
}
