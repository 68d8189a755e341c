import type { Duplex } from 'node:stream';
import type { HelloRequest, TunnelOp } from '@svc/common';

/**
 * A carrier accepts runtimes' connections on UNIFIED_PORT (tcp/TlsTcpCarrier: TLS over TCP and
 * reverse HTTP/2; quic/QuicCarrier: quinn, one QUIC stream per operation) and turns each
 * authenticated one into a TunnelSession through tunnel-admission.ts. Everything above this file
 * (registry, presence, operations) is carrier-neutral.
 */
export interface TunnelCarrier {
  readonly name: 'tcp' | 'quic';
  /** Starts accepting; resolves with the bound port (UNIFIED_PORT=0 binds an ephemeral one). */
  start(acceptor: TunnelAcceptor): Promise<{ port: number }>;
  /** Stops accepting and closes every session this carrier opened. */
  close(): Promise<void>;
}

/** A hello whose key matched a device; handed back with the session it admits. */
export interface TunnelAdmission {
  readonly deviceId: string;
  /** performance.now() when the key check began: a stale admission is refused. */
  readonly startedAt: number;
  /** The relay's revocation count when the key check began: a later revocation voids it. */
  readonly revocationMark: number;
}

/** What a carrier asks the relay: who presents this hello, and where the session goes. */
export interface TunnelAcceptor {
  /**
   * The device the hello's API key belongs to, or null (unknown, revoked, rejected key). Throws
   * when the key cannot be checked now (storage down): the runtime is told to retry.
   */
  authenticate(hello: HelloRequest): Promise<TunnelAdmission | null>;
  /**
   * Called synchronously after the hello answer was sent, with the admission it answered; the
   * relay may still close the session when the device was revoked while its key was checked.
   */
  accepted(session: TunnelSession, admission: TunnelAdmission): void;
  readonly heartbeatSecs: number;
}

export interface StreamRequest {
  op: TunnelOp;
  args: object;
  requestId: string;
  actor: string;
  /** The request body will end with trailers (`endWithTrailers`) rather than a plain end. */
  trailers?: boolean;
}

/** Header fields of a stream's answer (response headers or trailers), names lower-case. */
export type StreamFields = Record<string, string | string[] | undefined>;

/**
 * One operation stream toward the device. `body` writes the request body and reads the response
 * body; the stream's own flow control is the backpressure (pause the reader, respect `write()`).
 */
export interface TunnelStream {
  readonly body: Duplex;
  /** The device's response headers (operation metadata such as fs/read's `svc-size`). */
  readonly headers: StreamFields;
  /** The device's trailers, once its body has ended; empty when it sent none or the stream broke. */
  readonly trailers: Promise<StreamFields>;
  /** Ends the request body with these trailers; only for streams opened with `trailers: true`. */
  endWithTrailers(trailers: Record<string, string>): void;
  /** Cancels the stream (HTTP/2 RST_STREAM; QUIC RESET_STREAM + STOP_SENDING): the device stops the operation. */
  abort(): void;
}

export interface TunnelCloseOptions {
  /** Let the streams in flight finish (bounded by TUNNEL_LIMITS.replacedTunnelDrainMs) rather than cancel them. */
  drain?: boolean;
}

/** A live, authenticated tunnel to one device. */
export interface TunnelSession {
  readonly deviceId: string;
  readonly carrier: TunnelCarrier['name'];
  readonly runtime: HelloRequest['runtime'];
  readonly remoteAddress: string;
  /**
   * Opens a stream and resolves once the device accepted it (`:status 200`). A refusal rejects
   * with the DomainError the device named; a dead tunnel rejects with DeviceOfflineError.
   */
  openStream(request: StreamRequest): Promise<TunnelStream>;
  /**
   * Closes the tunnel, telling the runtime why (GOAWAY with the reason): no new streams from now.
   * In-flight streams are cancelled, unless `drain`: then they finish with their answers and the
   * connection goes once the last one closed, or after TUNNEL_LIMITS.replacedTunnelDrainMs (a
   * tunnel replaced by a newer one). Idempotent, except that closing a draining tunnel again
   * without `drain` cuts it now (revocation, shutdown). Resolves once the connection is gone.
   */
  close(reason: string, options?: TunnelCloseOptions): Promise<void>;
  /** Runs once when the tunnel is gone, whoever closed it. */
  onClosed(listener: (reason: string) => void): void;
}
