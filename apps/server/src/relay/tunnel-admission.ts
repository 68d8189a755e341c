import { connect as h2connect, ClientHttp2Session } from 'node:http2';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { Logger } from '@nestjs/common';
import {
  encodeHello,
  HELLO_UNAUTHORIZED,
  HELLO_UNAVAILABLE,
  HELLO_UNSUPPORTED_VERSION,
  HelloRequest,
  parseHelloRequest,
  readHello,
  TUNNEL_HTTP2,
  TUNNEL_PROTOCOL_VERSION,
  TUNNEL_QUIC_STREAMS,
  UnsupportedHelloVersionError,
} from '@svc/common';
import type { TunnelAcceptor, TunnelAdmission, TunnelCarrier, TunnelSession } from './tunnel-carrier';
import { H2FrameGuard } from './tcp/h2-frame-guard';
import { H2TunnelSession } from './tcp/h2-tunnel-session';

/** A refused runtime gets this long to read the refusal before the connection is destroyed. */
const REFUSAL_LINGER_MS = 2000;

const logger = new Logger('TunnelAdmission');

/** A carrier's own session for a runtime that asked for it in its hello (QUIC: one stream per operation). */
export type NativeStreamsSession = (deviceId: string, runtime: HelloRequest['runtime']) => TunnelSession;

/**
 * What every carrier does with a runtime's byte stream once its transport is up (TLS socket or
 * QUIC stream): read the hello, check the key, answer, then run reverse HTTP/2 on the same
 * stream (the runtime is the HTTP/2 server) and hand the session to the acceptor.
 *
 * A TLS socket goes to HTTP/2 as it is, so that nghttp2 reads and writes its native handle and no
 * tunnel byte passes through JavaScript (a JS stream in between cost 1.7-2x the CPU per byte); a
 * protocol error nghttp2 keeps quiet about is caught by H2TunnelSession's heartbeat instead. Any
 * other stream (QUIC's) is a JS stream anyway: its frames pass an H2FrameGuard, which closes the
 * tunnel at the first bad frame header.
 *
 * A carrier that offers `nativeStreams` (QUIC) uses it instead of HTTP/2 when the hello asks for it
 * (`streams: TUNNEL_QUIC_STREAMS`); the answer echoes the field so the runtime knows.
 */
export async function admitTunnel(
  socket: Duplex,
  remoteAddress: string,
  carrier: TunnelCarrier['name'],
  acceptor: TunnelAcceptor,
  helloTimeoutMs: number,
  nativeStreams?: NativeStreamsSession,
): Promise<void> {
  let raw: unknown;
  try {
    raw = await readHello(socket, { timeoutMs: helloTimeoutMs });
  } catch (err) {
    logger.debug(`no hello from ${remoteAddress}: ${(err as Error).message}`);
    socket.destroy();
    return;
  }
  let hello: HelloRequest;
  try {
    hello = parseHelloRequest(raw);
  } catch (err) {
    refuse(socket, err instanceof UnsupportedHelloVersionError ? HELLO_UNSUPPORTED_VERSION : HELLO_UNAUTHORIZED);
    return;
  }
  let admission: TunnelAdmission | null;
  try {
    admission = await acceptor.authenticate(hello);
  } catch (err) {
    logger.warn(`could not check a runtime's key: ${(err as Error).message}`);
    refuse(socket, HELLO_UNAVAILABLE);
    return;
  }
  if (admission === null) {
    refuse(socket, HELLO_UNAUTHORIZED);
    return;
  }
  const { deviceId } = admission;
  const streams = nativeStreams && hello.streams === TUNNEL_QUIC_STREAMS ? TUNNEL_QUIC_STREAMS : undefined;
  // HTTP/2 takes over a TLS socket's native handle: a write still in flight then completes into
  // the HTTP/2 session and aborts the process (node_http2.cc is_write_in_progress), so wait.
  const written = await new Promise<boolean>((resolve) => {
    if (socket.destroyed) resolve(false);
    else socket.write(encodeHello({ v: TUNNEL_PROTOCOL_VERSION, ok: true, device_id: deviceId, heartbeat_secs: acceptor.heartbeatSecs, ...(streams && { streams }) }), (err) => resolve(!err));
  });
  if (!written || socket.destroyed) return;
  if (streams && nativeStreams) {
    acceptor.accepted(nativeStreams(deviceId, hello.runtime), admission);
    return;
  }
  let session: H2TunnelSession | undefined;
  const transport =
    socket instanceof TLSSocket
      ? socket
      : new H2FrameGuard(socket, (problem) => {
          void session?.close(`protocol error: ${problem}`);
          transport.destroy();
        });
  session = new H2TunnelSession(deviceId, hello.runtime, remoteAddress, startHttp2(transport), acceptor.heartbeatSecs, carrier);
  acceptor.accepted(session, admission);
}

function refuse(socket: Duplex, error: string): void {
  if (socket.destroyed) return;
  socket.end(encodeHello({ v: TUNNEL_PROTOCOL_VERSION, ok: false, error }));
  setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
}

function startHttp2(socket: Duplex): ClientHttp2Session {
  const session = h2connect('http://device', {
    createConnection: () => socket,
    settings: { initialWindowSize: TUNNEL_HTTP2.initialWindowSize, maxFrameSize: TUNNEL_HTTP2.maxFrameSize, enablePush: false },
    maxSessionMemory: TUNNEL_HTTP2.maxSessionMemoryMb,
  });
  session.on('connect', () => session.setLocalWindowSize(TUNNEL_HTTP2.sessionWindowSize));
  return session;
}
