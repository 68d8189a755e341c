import { Logger } from '@nestjs/common';
import { CONTROL_STREAM_READ_BYTES, loadQuinn, QUINN_NO_KEEPALIVE, QUINN_UNBOUNDED_CONNECTION_WINDOW, QuinnConnection, QuinnDuplex, QuinnIdentity, QuinnServer, QuinnSettings } from '@svc/common';
import { ConnectionCaps, ConnectionLimits } from '../../common/connection-limits';
import { admitTunnel } from '../tunnel-admission';
import type { TunnelAcceptor, TunnelCarrier } from '../tunnel-carrier';
import { QuicTunnelSession } from './quic-tunnel-session';

export interface QuicCarrierOptions {
  host: string;
  port: number;
  /** This server's QUIC (libp2p-tls) identity; runtimes check its peer id (quic-identity.ts). */
  identity: QuinnIdentity;
  /** A connection must open its stream, and then send its hello, each within this. */
  handshakeTimeoutMs: number;
  caps: ConnectionCaps;
}

/**
 * A connection that hears nothing for this long is gone. Runtimes send a QUIC PING every 5 s
 * (apps/runtime quic-connect.ts), so only a dead peer or path stays silent; UDP has
 * no reset, so this is how a killed runtime is noticed, sooner than the tunnel's HTTP/2 PINGs.
 */
export const QUIC_IDLE_TIMEOUT_MS = 15_000;
/** Receive windows: enough in flight for a fast path, bounded memory per tunnel. */
const STREAM_WINDOW_BYTES = 8 * 1024 * 1024;
/** Bytes already written (e.g. the GOAWAY naming the reason) get this long to leave before the close. */
const FLUSH_BEFORE_CLOSE_MS = 500;

/**
 * The binding's `inboundConnection()` takes the next incoming connection and then awaits its
 * whole handshake: one caller would serialise handshakes behind the slowest (a lost packet costs
 * a retransmit timeout), so this many accept loops run side by side (each is one pending
 * promise). 64 throttled a fleet's cold start: 1,000 handshakes at once from one client, 10 s
 * handshake timeout, loaded 2-core machine: 291 completed with 64 loops, 659–662 with 1,024,
 * 573 with 4,096 (CPU-bound beyond that).
 */
const PARALLEL_HANDSHAKES = 1024;

/** Thrown by start() when the UDP port is taken, so the relay can pick another ephemeral port. */
export class QuicPortInUseError extends Error {}

/**
 * Carrier 1 (QUIC on UNIFIED_PORT/udp): quinn, through its native binding (@svc/common quinn/),
 * runs the UDP socket, TLS and congestion control on its own threads; this thread only sees whole
 * stream reads and writes. Each connection's first bidirectional stream goes through the same
 * admission as a TLS socket (hello, key check); a runtime that asks for it in its hello then gets
 * one QUIC stream per operation (QuicTunnelSession), an older one reverse HTTP/2 on that stream.
 */
export class QuicCarrier implements TunnelCarrier {
  readonly name = 'quic' as const;
  private servers: QuinnServer[] = [];
  private readonly connections = new Set<QuinnConnection>();
  private readonly logger = new Logger('QuicCarrier');
  private readonly limits: ConnectionLimits;

  constructor(private readonly options: QuicCarrierOptions) {
    this.limits = new ConnectionLimits(options.caps, (message) => this.logger.warn(`QUIC: ${message}`));
  }

  async start(acceptor: TunnelAcceptor): Promise<{ port: number }> {
    const quinn = loadQuinn();
    const settings: QuinnSettings = {
      privateKeyProto: this.options.identity.privateKeyProto,
      handshakeTimeout: this.options.handshakeTimeoutMs,
      maxIdleTimeout: QUIC_IDLE_TIMEOUT_MS,
      // The runtimes send the keep-alives; 0 here would mean a PING per packet received (binding.ts).
      keepAliveInterval: QUINN_NO_KEEPALIVE,
      // The runtime opens one stream, the control stream; the operation streams are this server's.
      maxConcurrentStreamLimit: 1,
      maxStreamData: STREAM_WINDOW_BYTES,
      maxConnectionData: QUINN_UNBOUNDED_CONNECTION_WINDOW,
      receiveBufferSize: 4 * 1024 * 1024,
      sendBufferSize: 4 * 1024 * 1024,
    };
    const config = new quinn.QuinnConfig(settings);
    const { host } = this.options;
    // quinn's IPv6 socket is IPv6-only: `::` gets a second, IPv4 socket on the same port.
    const hosts = host === '::' ? ['::', '0.0.0.0'] : [host];
    let port = this.options.port;
    try {
      for (const address of hosts) {
        const server = new quinn.Server(config, address, port);
        port = server.port();
        this.servers.push(server);
        for (let i = 0; i < PARALLEL_HANDSHAKES; i++) void this.acceptLoop(server, acceptor);
      }
    } catch (error) {
      await this.close();
      const message = (error as Error).message;
      throw /in use|os error (98|48|10048)/i.test(message) ? new QuicPortInUseError(message) : new Error(`QUIC listener: ${message}`);
    }
    return { port };
  }

  async close(): Promise<void> {
    const servers = this.servers.splice(0);
    for (const connection of this.connections) connection.abort();
    this.connections.clear();
    await Promise.all(servers.map((server) => server.abort().catch(() => undefined)));
  }

  private async acceptLoop(server: QuinnServer, acceptor: TunnelAcceptor): Promise<void> {
    for (;;) {
      let connection: QuinnConnection;
      try {
        connection = await server.inboundConnection();
      } catch {
        if (!this.servers.includes(server)) return;
        continue; // a failed handshake
      }
      this.accept(connection, acceptor);
    }
  }

  private accept(connection: QuinnConnection, acceptor: TunnelAcceptor): void {
    const remoteAddress = sourceOf(connection.remoteMultiaddr());
    const release = this.limits.acquire(remoteAddress);
    if (!release) {
      connection.abort();
      return;
    }
    this.connections.add(connection);
    // One native wait per connection, shared (each pending call costs ~2 KB of native memory).
    const closed = connection.closed();
    void closed.then(() => {
      release();
      this.connections.delete(connection);
    });
    const noStream = setTimeout(() => connection.abort(), this.options.handshakeTimeoutMs);
    connection.inboundStream().then(
      (stream) => {
        clearTimeout(noStream);
        const socket = new QuinnDuplex(stream, remoteAddress, { minReadBytes: CONTROL_STREAM_READ_BYTES });
        socket.on('error', (err) => this.logger.debug(`QUIC tunnel from ${remoteAddress}: ${err.message}`));
        socket.once('close', () => setTimeout(() => connection.abort(), FLUSH_BEFORE_CLOSE_MS).unref());
        void closed.then(() => socket.destroy(new Error('QUIC connection closed')));
        const nativeStreams = (deviceId: string, runtime: { version: string; boot_id: string }) => new QuicTunnelSession(deviceId, runtime, remoteAddress, connection, closed, socket);
        void admitTunnel(socket, remoteAddress, this.name, acceptor, this.options.handshakeTimeoutMs, nativeStreams);
      },
      () => {
        clearTimeout(noStream);
        connection.abort();
      },
    );
  }
}

/** The source address in the binding's `/ip4/<addr>/udp/<port>/quic-v1/p2p/<id>`. */
function sourceOf(multiaddr: string): string {
  const address = /^\/ip[46]\/([^/]+)\//.exec(multiaddr)?.[1] ?? multiaddr;
  return address.replace(/^::ffff:/, '');
}
