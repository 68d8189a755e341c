import { createServer, Http2Server, ServerHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { TUNNEL_HTTP2 } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { closeWhenIdle } from '../relay/tcp/idle-session';
import { ClientStreamRouter } from './client-stream.router';
import type { ClientStreamAcceptor } from '../relay/tunnel-ports';

/** ALPN of client connections on UNIFIED_PORT: plain HTTP/2, so any HTTP/2 client can speak it. */
export const CLIENT_STREAMS_ALPN = 'h2';

/**
 * The client side of UNIFIED_PORT: a TLS connection that negotiated ALPN `h2` (a CLI or MCP
 * process) becomes an HTTP/2 server session carrying any number of concurrent streams, each
 * authenticated and routed on its own by ClientStreamRouter. Windows match the tunnel's, so one
 * slow reader stalls only its own stream, and a session buffers at most its connection window.
 */
@Injectable()
export class ClientStreamGateway implements ClientStreamAcceptor {
  readonly alpn = CLIENT_STREAMS_ALPN;
  private readonly server: Http2Server;
  private readonly logger = new Logger('ClientStreams');

  constructor(router: ClientStreamRouter, @Inject(SERVER_CONFIG) config: ServerConfig) {
    this.server = createServer({
      settings: { initialWindowSize: TUNNEL_HTTP2.initialWindowSize, maxFrameSize: TUNNEL_HTTP2.maxFrameSize, maxConcurrentStreams: TUNNEL_HTTP2.maxConcurrentStreams, enablePush: false },
      maxSessionMemory: TUNNEL_HTTP2.maxSessionMemoryMb,
    });
    this.server.on('session', (session: ServerHttp2Session) => {
      session.on('connect', () => session.setLocalWindowSize(TUNNEL_HTTP2.sessionWindowSize));
      session.on('error', (err) => this.logger.debug(`client session: ${err.message}`));
      closeWhenIdle(session, config.connections.clientIdleTimeoutMs);
    });
    this.server.on('stream', (stream, headers) => void router.serve(stream, headers));
  }

  /** Takes over a TLS socket that negotiated `h2`; the carrier that accepted it closes it on shutdown. */
  accept(socket: TLSSocket): void {
    this.server.emit('connection', socket);
  }
}
