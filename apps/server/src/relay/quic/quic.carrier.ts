import type { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { TUNNEL_ALPN } from '@svc/common';
import { admitTunnel } from '../tunnel-admission';
import type { TunnelAcceptor, TunnelCarrier } from '../tunnel-carrier';
import { BridgedStream } from './bridged-stream';
import type { FromWorker, ToWorker } from './quic-bridge-messages';
import { startQuicWorker } from './quic-worker-launcher';
import type { ConnectionCaps } from '../connection-limits';

export interface QuicCarrierOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  /** Largest UDP payload sent; 1350 fits the usual 1500-byte path MTU with room for tunnels. */
  maxDatagramBytes?: number;
  /** A connection must open its stream, and then send its hello, each within this. */
  handshakeTimeoutMs: number;
  caps: ConnectionCaps;
}

const DEFAULT_MAX_DATAGRAM_BYTES = 1350;
/**
 * A connection that hears nothing for this long is gone. Runtimes send a QUIC PING every 5 s
 * (apps/runtime quic-connect.ts), so only a dead peer or path stays silent; UDP has
 * no reset, so this is how a killed runtime is noticed, sooner than the tunnel's HTTP/2 PINGs.
 */
export const QUIC_IDLE_TIMEOUT_MS = 15_000;

/** Thrown by start() when the UDP port is taken, so the relay can pick another ephemeral port. */
export class QuicPortInUseError extends Error {}

/**
 * Carrier 1 (QUIC on UNIFIED_PORT/udp, ALPN svc-tunnel/1): the worker thread runs QUIC; each
 * connection's first bidirectional stream arrives here as a BridgedStream and goes through the
 * same admission as a TLS socket (hello, key check, reverse HTTP/2). v1 keeps one stream per
 * tunnel so every operation behaves the same on both carriers.
 */
export class QuicCarrier implements TunnelCarrier {
  readonly name = 'quic' as const;
  private worker: Worker | null = null;
  private readonly streams = new Map<number, BridgedStream>();
  private stopped: (() => void) | null = null;
  private readonly logger = new Logger('QuicCarrier');

  constructor(private readonly options: QuicCarrierOptions) {}

  start(acceptor: TunnelAcceptor): Promise<{ port: number }> {
    const worker = startQuicWorker({
      host: this.options.host,
      port: this.options.port,
      cert: this.options.cert,
      key: this.options.key,
      alpn: TUNNEL_ALPN,
      maxDatagramBytes: this.options.maxDatagramBytes ?? DEFAULT_MAX_DATAGRAM_BYTES,
      idleTimeoutMs: QUIC_IDLE_TIMEOUT_MS,
      streamTimeoutMs: this.options.handshakeTimeoutMs,
      caps: this.options.caps,
    });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.t === 'listening') resolve({ port: message.port });
        else if (message.t === 'refused') this.logger.warn(`QUIC: ${message.message}`);
        else if (message.t === 'failed') {
          void worker.terminate();
          reject(message.code === 'EADDRINUSE' || /EADDRINUSE/.test(message.message) ? new QuicPortInUseError(message.message) : new Error(`QUIC listener: ${message.message}`));
        } else this.dispatch(message, acceptor);
      });
      worker.on('error', (err) => {
        this.logger.error(`QUIC worker failed: ${err.message}`);
        reject(err);
        this.lostAll('QUIC worker failed');
      });
      worker.on('exit', () => {
        this.worker = null;
        this.lostAll('QUIC worker stopped');
        this.stopped?.();
      });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => (this.stopped = resolve));
    const stopped = new Promise<void>((resolve) => worker.on('message', (message: FromWorker) => message.t === 'stopped' && resolve()));
    this.send({ t: 'stop' });
    await Promise.race([stopped, exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await worker.terminate();
  }

  private dispatch(message: FromWorker, acceptor: TunnelAcceptor): void {
    if (message.t === 'open') {
      const stream = new BridgedStream(message.id, message.remoteAddress, (out) => this.send(out));
      this.streams.set(message.id, stream);
      stream.on('close', () => this.streams.delete(message.id));
      stream.on('error', (err) => this.logger.debug(`QUIC tunnel from ${message.remoteAddress}: ${err.message}`));
      void admitTunnel(stream, message.remoteAddress, this.name, acceptor, this.options.handshakeTimeoutMs);
      return;
    }
    if (!('id' in message)) return;
    const stream = this.streams.get(message.id);
    if (!stream) return;
    if (message.t === 'data') stream.received(message.chunk);
    else if (message.t === 'end') stream.receivedEnd();
    else if (message.t === 'credit') stream.credited(message.bytes);
    else if (message.t === 'closed') {
      this.streams.delete(message.id);
      stream.lost(message.reason);
    }
  }

  private send(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private lostAll(reason: string): void {
    for (const stream of this.streams.values()) stream.lost(reason);
    this.streams.clear();
  }
}
