import type { Socket } from 'node:net';
import { createServer, Server, TLSSocket } from 'node:tls';
import { Logger } from '@nestjs/common';
import { TUNNEL_ALPN } from '@svc/common';
import { admitTunnel } from '../tunnel-admission';
import type { TunnelAcceptor, TunnelCarrier } from '../tunnel-carrier';
import { ConnectionCaps, ConnectionLimits, sourceAddress } from '../../common/connection-limits';

export interface TlsTcpCarrierOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  /** Client (CLI, MCP) connections share the port under their own ALPN and are handed over here. */
  clients?: ClientConnections;
  /** The TLS handshake, and then the hello, must each finish within this (TUNNEL_HANDSHAKE_TIMEOUT_MS). */
  handshakeTimeoutMs: number;
  caps: ConnectionCaps;
}

export interface ClientConnections {
  readonly alpn: string;
  accept(socket: TLSSocket): void;
}

/**
 * Carrier 2 (TLS 1.3 over TCP on UNIFIED_PORT): TLS with ALPN svc-tunnel/1, then the hello, then
 * reverse HTTP/2 on the same socket (the runtime is the HTTP/2 server). A connection negotiating
 * the clients' ALPN (h2) is handed to `clients` instead. Connections over the caps are refused
 * before TLS; one that does not finish its handshake (or hello) in time is destroyed.
 */
export class TlsTcpCarrier implements TunnelCarrier {
  readonly name = 'tcp' as const;
  private server: Server | null = null;
  /** Every TCP connection, handshaking or not, so close() can end them all. */
  private readonly sockets = new Set<Socket>();
  private readonly logger = new Logger('TlsTcpCarrier');
  private readonly limits: ConnectionLimits;

  constructor(private readonly options: TlsTcpCarrierOptions) {
    this.limits = new ConnectionLimits(options.caps, (message) => this.logger.warn(message));
  }

  start(acceptor: TunnelAcceptor): Promise<{ port: number }> {
    const server = createServer({
      cert: this.options.cert,
      key: this.options.key,
      minVersion: 'TLSv1.3',
      ALPNProtocols: this.options.clients ? [TUNNEL_ALPN, this.options.clients.alpn] : [TUNNEL_ALPN],
      handshakeTimeout: this.options.handshakeTimeoutMs,
    });
    server.on('connection', (socket: Socket) => {
      if (!this.limits.admit(socket)) return;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', (socket) => this.accept(socket, acceptor));
    // Node only reports a failed or timed-out handshake; the socket stays open until destroyed.
    server.on('tlsClientError', (err, socket) => {
      this.logger.debug(`TLS handshake from ${sourceAddress(socket)} failed: ${err.message}`);
      socket.destroy();
    });
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
    // Small frames (exec output, PINGs, window updates) must not wait for Nagle: measured, it
    // took a small exec from ~16 ms to ~7 ms.
    socket.setNoDelay(true);
    socket.on('error', (err) => this.logger.debug(`tunnel socket from ${sourceAddress(socket)}: ${err.message}`));
    if (this.options.clients && socket.alpnProtocol === this.options.clients.alpn) {
      this.options.clients.accept(socket);
      return;
    }
    if (socket.alpnProtocol !== TUNNEL_ALPN) {
      socket.destroy();
      return;
    }
    await admitTunnel(socket, sourceAddress(socket), this.name, acceptor, this.options.handshakeTimeoutMs);
  }
}
