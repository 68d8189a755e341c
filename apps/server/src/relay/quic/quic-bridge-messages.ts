import type { ConnectionCaps } from '../connection-limits';

/**
 * What the QUIC worker and the main thread say to each other over the worker's port. Each
 * accepted connection carries one bidirectional stream (the tunnel), named by `id`. Bytes flow
 * under credit: a side sends at most `BRIDGE_WINDOW_BYTES` it has not been credited back for, and
 * credits bytes only once they left its buffers, so neither thread ever buffers without bound.
 */
export const BRIDGE_WINDOW_BYTES = 2 * 1024 * 1024;

export interface QuicWorkerSettings {
  host: string;
  port: number;
  cert: string;
  key: string;
  alpn: string;
  /** Largest UDP payload this side sends (and announces it accepts). */
  maxDatagramBytes: number;
  /** A connection silent this long is dropped (QUIC idle timeout; the tunnel's PINGs keep it busy). */
  idleTimeoutMs: number;
  /** A connection that opens no stream this soon after its handshake is dropped. */
  streamTimeoutMs: number;
  caps: ConnectionCaps;
}

export type ToWorker =
  | { t: 'data'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'credit'; id: number; bytes: number }
  | { t: 'close'; id: number }
  | { t: 'stop' };

export type FromWorker =
  | { t: 'listening'; port: number }
  | { t: 'failed'; message: string; code?: string }
  | { t: 'open'; id: number; remoteAddress: string }
  | { t: 'data'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'credit'; id: number; bytes: number }
  | { t: 'closed'; id: number; reason: string }
  /** Connections refused over a cap (already rate-limited by the worker). */
  | { t: 'refused'; message: string }
  | { t: 'stopped' };
