import * as http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import { connect, TLSSocket } from 'node:tls';
import {
  encodeHello,
  HELLO_UNAUTHORIZED,
  HelloRequest,
  parseHelloResponse,
  readHello,
  TUNNEL_HTTP2,
  TUNNEL_LIMITS,
  TUNNEL_OPS,
  TUNNEL_PROTOCOL_VERSION,
  TUNNEL_QUIC_STREAMS,
  tunnelPath,
  WriteAheadSocket,
} from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { SHUTDOWN_GRACE_MS, type OperationRegistry } from '../supervisor/operation-registry';
import { dialQuic, QuicTunnelSocket } from './quic-connect';
import { serveOperationStreams } from './quic-operation-tunnel';
import type { OpenTunnel, TunnelCarrierName } from './open-tunnel';
import { OperationStreams } from './operation-streams';
import type { AnnouncedQuicIdentity } from './quic-trust';
import type { StreamRouter } from './stream-router';
import { tlsConnectOptions, TunnelTrust, untrustedReason } from './tls-trust';
import { isCertificateError, untrustedServer } from './untrusted-server';

const DEPLOYMENT_CHANNEL_PATH = tunnelPath(TUNNEL_OPS.deployments);

const CONNECT_TIMEOUT_MS = 15_000;
/** How long a graceful close waits for streams to finish before cutting the connection. */
const CLOSE_GRACE_MS = 2000;
export type { OpenTunnel, TunnelCarrierName } from './open-tunnel';

/** The part of a GOAWAY's debug data logged as the server's reason. */
const MAX_REASON_BYTES = 200;

export interface TunnelTarget {
  host: string;
  port: number;
  /** What the server announces (GET /auth/config); unknown when the address was given with --tunnel. */
  transports?: TunnelCarrierName[];
  /** The certificate fingerprint the server announces; only ever shown in a hint, never trusted. */
  certificateSha256?: string;
  /** The QUIC server key the server announces, vouched for by its tunnel certificate (quic-trust.ts). */
  quic?: AnnouncedQuicIdentity;
}

export interface TunnelConnectOptions {
  target: TunnelTarget;
  carrier: TunnelCarrierName;
  trust: TunnelTrust;
  /** How long the transport handshake may take (TLS, or QUIC's handshake with its retransmits). */
  connectTimeoutMs?: number;
  apiKey: string;
  runtime: HelloRequest['runtime'];
  router: StreamRouter;
  operations: OperationRegistry;
  log: RuntimeLogger;
}

/** The server answered the hello with "unauthorized": the key is unknown, revoked or rejected. */
export class TunnelRefusedError extends Error {
  constructor() {
    super('The server refused this device API key (device rejected, removed or re-keyed)');
    this.name = 'TunnelRefusedError';
  }
}


/**
 * One tunnel: TLS or a QUIC stream (trust checked before any byte is sent), the hello, then this
 * runtime becomes the HTTP/2 server on the same byte stream and the server opens a stream per
 * operation. On QUIC the hello asks for one QUIC stream per operation instead
 * (quic-operation-tunnel.ts); a server that does not echo it gets reverse HTTP/2. A tunnel that
 * hears no PING for 3 heartbeats is declared dead, so a silently broken path is noticed in 30 s.
 */
export async function openTunnel(options: TunnelConnectOptions): Promise<OpenTunnel> {
  const { target, trust, log } = options;
  const timeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const quic = options.carrier === 'quic';
  const socket: Duplex | QuicTunnelSocket =
    quic
      ? await dialQuic({ host: target.host, port: target.port, trust, timeoutMs, identity: target.quic, announcedSha256: target.certificateSha256 })
      : await connectTls(target, trust, timeoutMs);
  let answer;
  try {
    const answered = readHello(socket);
    // A server that closes at once (over its connection limit, shutting down) rejects the answer
    // before the write below completes: handled here, or it is an unhandled rejection that ends the process.
    answered.catch(() => undefined);
    // HTTP/2 takes over the socket's native handle next; no write may still be in flight then.
    await new Promise((resolve) => socket.write(encodeHello({ v: TUNNEL_PROTOCOL_VERSION, api_key: options.apiKey, runtime: options.runtime, ...(quic && { streams: TUNNEL_QUIC_STREAMS }) }), resolve));
    answer = parseHelloResponse(await answered);
  } catch (error) {
    socket.destroy();
    throw error;
  }
  if (!answer.ok) {
    socket.destroy();
    if (answer.error === HELLO_UNAUTHORIZED) throw new TunnelRefusedError();
    throw new Error(`server refused the tunnel: ${answer.error}`);
  }
  if (answer.streams === TUNNEL_QUIC_STREAMS && 'connection' in socket) {
    const { router, operations } = options;
    return withRoundTrip(serveOperationStreams(socket, { deviceId: answer.device_id, heartbeatSecs: answer.heartbeat_secs, router, operations, log }), socket);
  }

  const server = http2.createServer({
    settings: { initialWindowSize: TUNNEL_HTTP2.initialWindowSize, maxFrameSize: TUNNEL_HTTP2.maxFrameSize, maxConcurrentStreams: TUNNEL_HTTP2.maxConcurrentStreams },
    maxSessionMemory: TUNNEL_HTTP2.maxSessionMemoryMb,
  });
  let session: http2.ServerHttp2Session | undefined;
  server.on('session', (s: http2.ServerHttp2Session) => {
    session = s;
    s.on('connect', () => s.setLocalWindowSize(TUNNEL_HTTP2.sessionWindowSize));
  });
  const operationStreams = new OperationStreams();
  server.on('stream', (stream, headers) => {
    // The deployment channel lives as long as the session and the server opens it again on the
    // next one: it is no user's operation, so it never keeps the tunnel from moving to QUIC.
    if (headers[':path'] !== DEPLOYMENT_CHANNEL_PATH) operationStreams.track(stream);
    options.router.handle(stream, headers);
  });
  // Both ends of the tunnel are Node's HTTP/2: this end reads on while it writes (WriteAheadSocket).
  server.emit('connection', new WriteAheadSocket(socket));

  let settle!: (reason: string) => void;
  const closed = new Promise<string>((resolve) => (settle = resolve));
  const deadAfterMs = answer.heartbeat_secs * TUNNEL_LIMITS.runtimeDeadAfterBeats * 1000;
  const watchdog = setTimeout(() => end(`no keep-alive from the server for ${deadAfterMs / 1000} s`), deadAfterMs);
  let shuttingDown = false;
  /** Why the server said it is closing the tunnel (its GOAWAY), which explains whatever ends it next. */
  let serverReason: string | undefined;
  let markGone!: () => void;
  /** Settles once the connection is gone (`closed` may settle earlier: at the server's GOAWAY). */
  const gone = new Promise<void>((resolve) => (markGone = resolve));
  const end = (reason: string) => {
    clearTimeout(watchdog);
    operationStreams.stop();
    session?.destroy();
    socket.destroy();
    settle(shuttingDown ? 'shutdown' : serverReason ? `server closed the tunnel: ${serverReason}` : reason);
    markGone();
  };
  session?.on('ping', () => {
    watchdog.refresh();
  });
  session?.on('error', (error) => log.debug('tunnel session error', { error }));
  session?.on('goaway', (code: number, _lastStreamId: number, data?: Buffer) => {
    if (serverReason !== undefined) return;
    serverReason = goawayReason(code, data);
    // debug: the loop logs the reason of a tunnel it loses ('tunnel lost'); one that auto replaced itself is no news.
    log.debug('server closing the tunnel', { code, reason: serverReason });
    // The loop reconnects at once; the operations in flight here finish first (HTTP/2's graceful
    // close: no new streams), then this side hangs up.
    settle(`server closed the tunnel: ${serverReason}`);
    operationStreams.drain(() => end('tunnel session closed'));
  });
  session?.on('close', () => end('tunnel session closed'));
  socket.on('error', (error) => end(`tunnel connection failed: ${error.message}`));
  socket.on('close', () => end('tunnel connection closed by the server'));

  return withRoundTrip({
    carrier: options.carrier,
    deviceId: answer.device_id,
    busy: () => operationStreams.busy(),
    heartbeatSecs: answer.heartbeat_secs,
    closed,
    async close() {
      shuttingDown = true;
      const left = await options.operations.abortAll('shutdown', SHUTDOWN_GRACE_MS);
      if (left > 0) log.warn('operations still running at shutdown; closing the tunnel anyway', { operations: left });
      const cut = setTimeout(() => end('shutdown'), CLOSE_GRACE_MS);
      session?.close(() => end('shutdown'));
      await gone;
      clearTimeout(cut);
    },
  }, socket);
}

/** A QUIC tunnel answers its path's round-trip time (what `auto` decides on, transport-select.ts). */
function withRoundTrip(tunnel: OpenTunnel, socket: Duplex | QuicTunnelSocket): OpenTunnel {
  if ('connection' in socket) tunnel.roundTripMs = () => socket.connection.stats().pathRtt;
  return tunnel;
}

/** The GOAWAY's debug data as one printable line (the server puts its reason there), or the code. */
function goawayReason(code: number, data: Buffer | undefined): string {
  const text = (data ?? Buffer.alloc(0)).toString('utf8', 0, Math.min(data?.length ?? 0, MAX_REASON_BYTES)).replace(/[^\x20-\x7e]+/g, ' ').trim();
  return text || `GOAWAY code ${code}`;
}

function connectTls(target: TunnelTarget, trust: TunnelTrust, timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(tlsConnectOptions(target.host, target.port, trust));
    socket.setNoDelay(true); // small frames go out at once (see the relay's carrier)
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no TLS connection to ${target.host}:${target.port} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onError = (error: Error) => {
      const message = `TLS connection to ${target.host}:${target.port} failed: ${error.message}`;
      fail(isCertificateError(error) ? untrustedServer(message, trust, target.certificateSha256) : new Error(message));
    };
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      // Later errors are handled by whoever holds the socket; none may go unheard.
      socket.on('error', () => undefined);
      const distrust = untrustedReason(socket, trust);
      if (distrust) fail(untrustedServer(distrust, trust, target.certificateSha256));
      else resolve(socket);
    });
  });
}
