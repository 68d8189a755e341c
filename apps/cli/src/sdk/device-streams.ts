import { ClientHttp2Session, ClientHttp2Stream, connect as http2Connect, constants as h2 } from 'node:http2';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { ErrorAnswer, errorFromAnswer, ServerUnreachableError } from '@svc/common/error-answer';
import { serverTlsOptions, ServerTrust, untrustedServerReason } from '@svc/common/tls-trust';
import { encodeStreamArgs, TUNNEL_HEADERS, TUNNEL_HTTP2 } from '@svc/common/tunnel';
import type { ForwardTarget } from '@svc/common';
import { WriteAheadSocket } from '@svc/common/http2-write-ahead';
import { ROUTES, StreamArgs, StreamRouteName, subRoutePath } from '@svc/common/operations';
import { parseJsonOr, plainGet } from './plain-get';

/** ALPN of client connections on UNIFIED_PORT (the runtimes' is svc-tunnel/1). */
export const CLIENT_STREAMS_ALPN = 'h2';
const CONNECT_TIMEOUT_MS = 15_000;
/** Ping interval; a ping unanswered for two of them means the path is dead: the next stream reconnects. */
const KEEPALIVE_MS = 15_000;
const MAX_ERROR_BODY_BYTES = 16 * 1024;

export interface DeviceStreamsOptions {
  /** The server's host and UNIFIED_PORT (GET /auth/config `tunnel.port`). */
  host: string;
  port: number;
  /** A CA file's contents or a pinned leaf SHA-256 (docs/protocol.md, "Carrier and trust"). */
  trust: ServerTrust;
  /** The user's access token; asked for every stream, so a refreshed token is picked up. */
  token: () => string | Promise<string>;
  /** Sent on every stream (e.g. CLIENT_KIND_HEADER from `svc mcp`). */
  headers?: Record<string, string>;
}

/**
 * A refused or broken stream: an ErrorAnswer like every other client path's (the name stays for
 * what callers check: `instanceof DeviceStreamError`).
 */
export const DeviceStreamError = ErrorAnswer;
export type DeviceStreamError = ErrorAnswer;

/**
 * One HTTP/2 connection per process to the server's UNIFIED_PORT, carrying any number of device
 * streams at once (docs/protocol.md, "Client streams"). The connection opens on first use and
 * again after it is lost. Trust is checked before a single byte is written.
 */
export class DeviceStreams {
  private session: Promise<ClientHttp2Session> | undefined;
  /** The session `session` resolved to, once it has. */
  private live: ClientHttp2Session | undefined;

  constructor(private readonly options: DeviceStreamsOptions) {}

  /**
   * Opens a forward to `target` on the device and resolves once the device connected to it. The
   * stream is the connection: write to send, read to receive, `end()` half-closes, and
   * `close(NGHTTP2_CANCEL)` aborts. Refusals reject with DeviceStreamError
   * (DEVICE_NOT_FOUND, FORBIDDEN, DEVICE_OFFLINE, CONNECTION_REFUSED, …).
   */
  async openForward(device: string, target: ForwardTarget): Promise<ClientHttp2Stream> {
    return this.open('forward_start.stream', device, { target });
  }

  /**
   * Opens a byte stream to the device's container engine socket (docker_exec; capability
   * device:exec): one per connection the `docker` CLI makes, like a forward's.
   */
  async openDocker(device: string): Promise<ClientHttp2Stream> {
    return this.open('docker_exec.stream', device, {});
  }

  /**
   * Opens an exec stream (`args` `{command, timeout_secs, stdin}`, docs/protocol.md, "Exec
   * stream"), resolved once the command runs; exec-stream.ts speaks its frames.
   */
  async openExecStream(device: string, args: StreamArgs<'device_exec.stream'>): Promise<ClientHttp2Stream> {
    return this.open('device_exec.stream', device, args);
  }

  /** Opens a shell stream (`args` as docs/protocol.md, "Shell"); shell-session.ts speaks its frames. */
  async openShellStream(device: string, args: StreamArgs<'device_exec.shell'>): Promise<ClientHttp2Stream> {
    return this.open('device_exec.shell', device, args);
  }

  /** Closes the connection; open streams are cut. */
  async close(): Promise<void> {
    const pending = this.session;
    this.session = undefined;
    this.live = undefined;
    const session = await pending?.catch(() => undefined);
    if (session && !session.destroyed) await new Promise<void>((resolve) => session.close(resolve));
  }

  /** `args` typed from the stream's `args` in the catalog, which the server checks them against. */
  private async open<S extends StreamRouteName>(route: S, device: string, args: StreamArgs<S>): Promise<ClientHttp2Stream> {
    const path = subRoutePath(route, { device });
    const session = await this.connected();
    const token = await this.options.token();
    const stream = session.request({
      [h2.HTTP2_HEADER_METHOD]: 'POST',
      [h2.HTTP2_HEADER_PATH]: path,
      ...this.options.headers,
      authorization: `Bearer ${token}`,
      [TUNNEL_HEADERS.args]: encodeStreamArgs(args),
    });
    // Its consumer learns of a failure from 'close', `finished` or its reads; an 'error' nobody
    // listens to (the connection torn down by the keep-alive while the consumer has no listener
    // attached, e.g. between two reads) would end the process instead.
    stream.on('error', () => undefined);
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const onError = (err: Error) => reject(new DeviceStreamError('SERVER_UNREACHABLE', `Connection to the server lost: ${err.message}`, 503, undefined));
      stream.once('error', onError);
      stream.once('close', () => onError(new Error('stream closed')));
      stream.once('response', (received) => {
        stream.off('error', onError);
        stream.removeAllListeners('close');
        resolve(received);
      });
    });
    const status = Number(headers[h2.HTTP2_HEADER_STATUS]);
    if (status === 200) return stream;
    throw await refusal(stream, status);
  }

  /**
   * The live connection, dialed on first use and again once the previous one is gone: closed,
   * told to go away, or destroyed (whose 'close' event can come late, after its streams are torn
   * down).
   */
  private connected(): Promise<ClientHttp2Session> {
    if (this.live && (this.live.destroyed || this.live.closed)) this.forgetSession(this.live);
    if (!this.session) {
      const pending = this.dial();
      this.session = pending;
      pending.then(
        (session) => {
          if (this.session !== pending) return;
          this.live = session;
          session.once('close', () => this.forgetSession(session));
          session.once('goaway', () => this.forgetSession(session));
        },
        () => {
          if (this.session === pending) this.session = undefined;
        },
      );
    }
    return this.session;
  }

  private forgetSession(session: ClientHttp2Session): void {
    if (this.live !== session) return;
    this.live = undefined;
    this.session = undefined;
  }

  private async dial(): Promise<ClientHttp2Session> {
    const { host, port, trust } = this.options;
    const socket = await connectTls(host, port, trust);
    const session = http2Connect(`https://${host.includes(':') ? `[${host}]` : host}:${port}`, {
      // The server is Node's HTTP/2 too: this end reads on while it writes (WriteAheadSocket).
      createConnection: () => new WriteAheadSocket(socket),
      settings: { initialWindowSize: TUNNEL_HTTP2.initialWindowSize, maxFrameSize: TUNNEL_HTTP2.maxFrameSize, enablePush: false },
      maxSessionMemory: TUNNEL_HTTP2.maxSessionMemoryMb,
    });
    session.on('error', () => undefined); // streams report their own failures
    session.on('connect', () => session.setLocalWindowSize(TUNNEL_HTTP2.sessionWindowSize));
    keepAlive(session);
    return session;
  }
}

/** A plain-HTTP answer from these came over this machine's loopback interface, not a network. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Finds UNIFIED_PORT through `GET /auth/config`. Trust is `trust` when given (SVC_CA_FILE,
 * SVC_SERVER_FINGERPRINT); otherwise the announced `certificate_sha256` is pinned, but only when
 * it came over HTTPS or over loopback — over plain HTTP on a network anyone on the path could
 * announce their own certificate.
 */
export async function discoverDeviceStreams(serverUrl: URL, token: DeviceStreamsOptions['token'], trust?: ServerTrust, headers?: Record<string, string>): Promise<DeviceStreams> {
  const answer = await plainGet(new URL(ROUTES.auth_config.path, serverUrl)).catch((error: Error) => {
    throw new ServerUnreachableError(serverUrl, error.message);
  });
  if (answer.status < 200 || answer.status > 299) throw errorFromAnswer(answer.status, answer.text);
  const body = parseJsonOr(answer.text, {}) as { tunnel?: { port?: unknown; certificate_sha256?: unknown } | null };
  const port = body.tunnel?.port;
  if (typeof port !== 'number') throw new Error(`${serverUrl.origin} announces no stream endpoint (GET /auth/config)`);
  let chosen = trust;
  if (!chosen?.ca && !chosen?.pin) {
    const pin = body.tunnel?.certificate_sha256;
    if (typeof pin !== 'string') throw new Error(`${serverUrl.origin} announces no certificate for its stream endpoint: pass a CA file (SVC_CA_FILE) or a pin (SVC_SERVER_FINGERPRINT)`);
    if (serverUrl.protocol !== 'https:' && !LOOPBACK_HOSTS.has(serverUrl.hostname)) {
      throw new Error(`${serverUrl.origin} is not HTTPS, so its announced certificate cannot be trusted: pass a CA file (SVC_CA_FILE) or a pin (SVC_SERVER_FINGERPRINT)`);
    }
    chosen = { pin };
  }
  return new DeviceStreams({ host: serverUrl.hostname.replace(/^\[(.*)\]$/, '$1'), port, trust: chosen, token, headers });
}

function connectTls(host: string, port: number, trust: ServerTrust): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(serverTlsOptions(host, port, trust, CLIENT_STREAMS_ALPN));
    socket.setNoDelay(true); // keystrokes and small frames go out at once
    const fail = (message: string) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new DeviceStreamError('SERVER_UNREACHABLE', message, 503, undefined));
    };
    const timer = setTimeout(() => fail(`No TLS connection to ${host}:${port} within ${CONNECT_TIMEOUT_MS / 1000} s`), CONNECT_TIMEOUT_MS);
    const onError = (err: Error) => fail(`TLS connection to ${host}:${port} failed: ${err.message}`);
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      socket.on('error', () => undefined); // the HTTP/2 session reports later failures
      const distrust = untrustedServerReason(socket, trust, CLIENT_STREAMS_ALPN);
      if (distrust) fail(distrust);
      else resolve(socket);
    });
  });
}

/**
 * Pings while the session lives. A ping still unanswered two intervals later tears it down: one
 * interval alone is too short on a loaded machine, where the answer waits behind a full window of
 * forwarded data.
 */
function keepAlive(session: ClientHttp2Session): void {
  let unanswered = 0;
  const timer = setInterval(() => {
    if (unanswered >= 2) {
      session.destroy(new Error('keep-alive timeout'));
      return;
    }
    if (unanswered++ > 0) return; // the earlier ping is still out
    try {
      session.ping(() => (unanswered = 0));
    } catch {
      session.destroy();
    }
  }, KEEPALIVE_MS);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}

async function refusal(stream: ClientHttp2Stream, status: number): Promise<DeviceStreamError> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ERROR_BODY_BYTES) break;
      chunks.push(chunk);
    }
  } catch {
    // The status alone still makes an error.
  }
  if (!stream.destroyed) stream.close(h2.NGHTTP2_CANCEL);
  return errorFromAnswer(status, Buffer.concat(chunks));
}
