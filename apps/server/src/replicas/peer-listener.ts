import { createServer as createH2Server, Http2Server, IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream, constants as h2 } from 'node:http2';
import { createServer as createTlsServer, Server as TlsServer } from 'node:tls';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { decodeStreamArgs, DeviceOfflineError, DomainError, RateLimitedError, resetStream, TUNNEL_HEADERS, tunnelOpFromPath } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import type { StreamFields, TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { peerKey, peerServerTls } from './peer-key';
import { deviceFields, PEER_HEADERS } from './peer-protocol';

/**
 * PEER_PORT: where the other replicas (and only they: TLS with the peer key derived from
 * SERVER_SECRET) open streams toward the devices this replica holds. Each request becomes the same
 * stream on the device's tunnel, spliced both ways; only this process's own tunnels are used,
 * never a further hop. The user was authorized and the operation audited by the replica the user
 * called; this one logs each stream it relays.
 */
/** How long peers connected here have, after GOAWAY, to finish and leave before their connections are cut. */
const PEER_GOAWAY_GRACE_MS = 2_000;

@Injectable()
export class PeerListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PeerListener');
  private tls: TlsServer | null = null;
  private h2: Http2Server | null = null;
  private readonly sessions = new Set<ServerHttp2Session>();
  /** The bound port (PEER_PORT=0 binds an ephemeral one). */
  port = 0;

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly registry: TunnelRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const h2server = createH2Server();
    h2server.on('stream', (stream, headers) => void this.relay(stream, headers));
    h2server.on('session', (session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
    const tls = createTlsServer(peerServerTls(peerKey(this.config.serverSecret)), (socket) => h2server.emit('connection', socket));
    tls.on('tlsClientError', (err, socket) => {
      this.logger.warn(`refused a peer connection from ${socket.remoteAddress ?? '?'}: ${err.message}`);
      socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      tls.once('error', reject);
      tls.listen(this.config.replicas!.peerPort, this.config.listenHost, () => resolve());
    });
    this.tls = tls;
    this.h2 = h2server;
    this.port = (tls.address() as { port: number }).port;
    this.logger.log(`peer listener on ${this.config.listenHost}:${this.port}/tcp (replicas only)`);
  }

  /**
   * Stops listening and tells each peer connected here to go (GOAWAY): the other replicas keep
   * their connections open for reuse, so waiting for them to leave on their own would hold this
   * replica's stop. By now this replica's tunnels are closed, so no stream here has a device left.
   */
  async onApplicationShutdown(): Promise<void> {
    this.h2?.close();
    const closed = new Promise<void>((resolve) => (this.tls ? this.tls.close(() => resolve()) : resolve()));
    for (const session of this.sessions) session.close();
    const timer = setTimeout(() => {
      for (const session of this.sessions) session.destroy();
    }, PEER_GOAWAY_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  private async relay(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    stream.on('error', () => undefined);
    const op = tunnelOpFromPath(headers[h2.HTTP2_HEADER_PATH] as string | undefined);
    const deviceId = headers[PEER_HEADERS.device];
    const requestId = String(headers[TUNNEL_HEADERS.requestId] ?? '');
    const actor = String(headers[TUNNEL_HEADERS.actor] ?? '');
    if (op === undefined || typeof deviceId !== 'string') return refuse(stream, 400, new DomainError('INVALID_INPUT', 'Not a peer stream request'));
    let session;
    try {
      session = this.registry.requireForPeer(deviceId);
    } catch (err) {
      return refuse(stream, 503, err as DeviceOfflineError);
    }
    const trailers = headers[PEER_HEADERS.trailers] === '1';
    let upstream: TunnelStream;
    try {
      upstream = await session.openStream({ op, args: decodeStreamArgs(headers[TUNNEL_HEADERS.args]), requestId, actor, trailers });
    } catch (err) {
      return refuse(stream, 502, err instanceof DomainError ? err : new DomainError('INTERNAL', 'The device stream failed'));
    }
    this.logger.log(`peer stream ${op} on device ${deviceId} for ${actor} (request ${requestId})`);
    splice(stream, upstream, trailers);
  }
}

/**
 * The holder's own refusal (DEVICE_OFFLINE: it no longer holds the device; RATE_LIMITED: the
 * device's tunnel refused a new stream), or the device's, as `{code, message}`.
 */
function refuse(stream: ServerHttp2Stream, status: number, error: DomainError): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  const own = error instanceof DeviceOfflineError || error instanceof RateLimitedError;
  stream.respond({ [h2.HTTP2_HEADER_STATUS]: own ? error.status : status, 'content-type': 'application/json', ...(own ? { [PEER_HEADERS.refusal]: error.code } : {}) });
  stream.end(JSON.stringify({ code: error.code, message: error.message }));
}

/** Device → peer with the device's trailers at the end; peer → device, ending with the caller's trailers when it sends them. */
function splice(stream: ServerHttp2Stream, upstream: TunnelStream, requestTrailers: boolean): void {
  let answerTrailers: StreamFields = {};
  // The caller may have given up while the device's stream opened (its open timeout, a reset).
  if (stream.destroyed || stream.closed) return upstream.abort();
  stream.respond({ [h2.HTTP2_HEADER_STATUS]: 200, ...deviceFields(upstream.headers) }, { waitForTrailers: true });
  stream.on('wantTrailers', () => {
    if (!stream.destroyed) stream.sendTrailers(deviceFields(answerTrailers));
  });
  upstream.body.on('error', () => resetStream(stream));
  upstream.body.once('end', () => {
    void upstream.trailers.then((fields) => {
      answerTrailers = fields;
      if (!stream.destroyed) stream.end();
    });
  });
  upstream.body.pipe(stream, { end: false });
  if (requestTrailers) {
    let received: StreamFields = {};
    stream.once('trailers', (fields: StreamFields) => (received = fields));
    stream.once('end', () => upstream.endWithTrailers(deviceFields(received) as Record<string, string>));
    stream.pipe(upstream.body, { end: false });
  } else {
    stream.pipe(upstream.body);
  }
  // The caller went away (RST, or the hop broke) before the exchange finished: cancel on the device too.
  stream.once('close', () => {
    if (stream.rstCode !== undefined && stream.rstCode !== h2.NGHTTP2_NO_ERROR) upstream.abort();
  });
}
