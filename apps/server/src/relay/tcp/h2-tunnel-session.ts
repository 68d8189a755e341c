import { ClientHttp2Session, ClientHttp2Stream, constants as h2 } from 'node:http2';
import { Logger } from '@nestjs/common';
import {
  DeviceOfflineError,
  DomainError,
  encodeStreamArgs,
  HelloRequest,
  RateLimitedError,
  resetStream,
  TUNNEL_HEADERS,
  TUNNEL_LIMITS,
  tunnelPath,
} from '@svc/common';
import type { StreamFields, StreamRequest, TunnelCloseOptions, TunnelSession, TunnelStream } from '../tunnel-carrier';
import { deviceRefusal } from '../device-error';

/** A refusal body larger than this is cut: it only carries `{code, message}`. */
/** After a GOAWAY, the runtime gets this long to read it and hang up before the connection is cut. */
const GOAWAY_GRACE_MS = 1000;
/**
 * RST_STREAM codes with which the runtime's HTTP/2 session refuses a new stream while the tunnel
 * stays up: past its concurrent streams (REFUSED_STREAM), or over its session memory (ENHANCE_YOUR_CALM).
 */
const REFUSED_NEW_STREAM: ReadonlySet<number> = new Set([h2.NGHTTP2_REFUSED_STREAM, h2.NGHTTP2_ENHANCE_YOUR_CALM]);

/**
 * A tunnel over reverse HTTP/2: the server is the HTTP/2 client on the socket the runtime dialed,
 * so each operation is a request stream toward the device. Pings every heartbeat keep NATs open
 * and detect a dead path: a ping unanswered for `serverDeadAfterBeats` heartbeats closes it.
 */
export class H2TunnelSession implements TunnelSession {
  private closedReason: string | null = null;
  private readonly closeListeners: ((reason: string) => void)[] = [];
  private readonly heartbeat: NodeJS.Timeout;
  private lastPongAt = Date.now();
  private pingInFlight = false;
  /** The session's state when the last beat ended: a session that stopped sending keeps it frozen. */
  private stateAtLastBeat = '';
  private readonly logger = new Logger('TunnelSession');
  private readonly gone: Promise<void>;
  /** Closed with `drain`: its streams in flight are finishing. */
  private draining = false;

  constructor(
    readonly deviceId: string,
    readonly runtime: HelloRequest['runtime'],
    readonly remoteAddress: string,
    private readonly session: ClientHttp2Session,
    heartbeatSecs: number,
    /** Which carrier runs the stream under this session (both speak the same reverse HTTP/2). */
    readonly carrier: TunnelSession['carrier'] = 'tcp',
  ) {
    this.gone = new Promise((resolve) => (session.destroyed ? resolve() : session.once('close', () => resolve())));
    session.on('close', () => this.finish('connection closed'));
    session.on('goaway', (code: number) => this.finish(code === h2.NGHTTP2_NO_ERROR ? 'device sent GOAWAY' : `protocol error: device sent GOAWAY (code ${code})`));
    // nghttp2's own findings (e.g. a PUSH_PROMISE) arrive as ERR_HTTP2_ERROR. Others Node keeps
    // quiet about (an oversized frame, a malformed SETTINGS): nghttp2 sends GOAWAY, stops reading
    // and sends nothing more, so the heartbeat's ping is still queued a beat later (see beat()).
    session.on('error', (err: NodeJS.ErrnoException) => this.finish(`${err.code === 'ERR_HTTP2_ERROR' ? 'protocol error' : 'connection error'}: ${err.message}`));
    session.on('frameError', (type: number, code: number) => this.finish(`protocol error: frame of type ${type} failed (code ${code})`));
    const beatMs = heartbeatSecs * 1000;
    this.heartbeat = setInterval(() => this.beat(beatMs), beatMs);
    this.heartbeat.unref();
  }

  async openStream(request: StreamRequest): Promise<TunnelStream> {
    if (this.closedReason !== null || this.session.closed || this.session.destroyed) throw new DeviceOfflineError();
    let stream: ClientHttp2Stream;
    try {
      stream = this.session.request(
        {
          [h2.HTTP2_HEADER_METHOD]: 'POST',
          [h2.HTTP2_HEADER_PATH]: tunnelPath(request.op),
          [TUNNEL_HEADERS.args]: encodeStreamArgs(request.args),
          [TUNNEL_HEADERS.requestId]: request.requestId,
          [TUNNEL_HEADERS.actor]: request.actor,
        },
        { waitForTrailers: request.trailers === true },
      );
    } catch {
      throw new DeviceOfflineError();
    }
    const trailers = new Promise<StreamFields>((resolve) => {
      stream.once('trailers', (fields: StreamFields) => resolve(fields));
      stream.once('close', () => resolve({}));
    });
    const headers = await responseHeaders(stream, () => this.unanswered(stream));
    const status = Number(headers[h2.HTTP2_HEADER_STATUS]);
    if (status !== 200) throw await deviceRefusal(stream, status, (readToEnd) => (readToEnd ? stream.end() : resetStream(stream)));
    return {
      body: stream,
      headers,
      trailers,
      endWithTrailers: (fields) => {
        stream.once('wantTrailers', () => stream.sendTrailers(fields));
        stream.end();
      },
      abort: () => resetStream(stream),
    };
  }

  /**
   * GOAWAY carrying the reason (the runtime logs it); HTTP/2's graceful close then ends the
   * connection once its streams closed, and it is cut at the latest after a grace period, or with
   * `drain` after the drain time (the streams in flight finish meanwhile).
   */
  close(reason: string, options?: TunnelCloseOptions): Promise<void> {
    if (this.closedReason === null) {
      // The listeners first: the streams they cut (the deployment channel, relayed operations)
      // send their RST_STREAM while the socket still takes writes. Once session.close() has ended
      // the socket, a write through the frame guard's JS stream trips an assertion inside Node
      // (JSStreamSocket: a write after its shutdown began), which crashed a server shutting down.
      this.draining = options?.drain === true;
      this.finish(reason, this.draining ? TUNNEL_LIMITS.replacedTunnelDrainMs : GOAWAY_GRACE_MS);
      try {
        this.session.goaway(h2.NGHTTP2_NO_ERROR, 0, Buffer.from(reason, 'utf8'));
        this.session.close();
      } catch {
        // Already going: finish() above cuts it.
      }
    } else if (this.draining && !options?.drain) this.session.destroy();
    return this.gone;
  }

  onClosed(listener: (reason: string) => void): void {
    if (this.closedReason !== null) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  /**
   * Why a stream ended before the device's headers: refused by a tunnel that is still up (too
   * many operations in flight on it, RATE_LIMITED), else the device is gone (DEVICE_OFFLINE). A
   * GOAWAY or a lost connection closes the streams with its own code, so only a live session counts.
   */
  private unanswered(stream: ClientHttp2Stream): DomainError {
    const refused = REFUSED_NEW_STREAM.has(stream.rstCode ?? h2.NGHTTP2_NO_ERROR) && this.closedReason === null && !this.session.destroyed;
    return refused ? new RateLimitedError(`Device ${this.deviceId} refused a new operation: too many in flight on its tunnel; try again shortly`) : new DeviceOfflineError();
  }

  private beat(beatMs: number): void {
    if (this.pingInFlight && this.stalled()) {
      // Last beat's ping never left and nothing about the session moved since: give frames queued
      // this very turn their flush, then judge. A busy session (streams opening, windows moving)
      // whose pong is merely late is left to the keep-alive below. A connection whose writes
      // stalled for a whole beat with nothing else going on looks the same from here; it is cut one
      // beat before the keep-alive would have cut it.
      setImmediate(() => {
        if (this.stalled()) this.finish('protocol error: the HTTP/2 session stopped sending (nghttp2 refused a frame, e.g. an oversized one or a malformed SETTINGS, or the connection stalled)');
      });
      return;
    }
    if (Date.now() - this.lastPongAt > TUNNEL_LIMITS.serverDeadAfterBeats * beatMs) {
      this.finish('keep-alive timeout');
      return;
    }
    if (!this.pingInFlight) {
      this.pingInFlight = true;
      try {
        this.session.ping((err) => {
          this.pingInFlight = false;
          if (!err) this.lastPongAt = Date.now();
        });
      } catch {
        this.finish('connection closed');
        return;
      }
    }
    this.stateAtLastBeat = this.stateSignature();
  }

  /** Frames are queued and the session's state (windows, stream ids, queue) is as the last beat left it. */
  private stalled(): boolean {
    return this.framesQueued() && this.stateSignature() === this.stateAtLastBeat;
  }

  private stateSignature(): string {
    return this.session.destroyed ? '' : JSON.stringify(this.session.state);
  }

  /** Frames nghttp2 holds unsent; a live session writes them out within a turn of the event loop. */
  private framesQueued(): boolean {
    return !this.session.destroyed && (this.session.state.outboundQueueSize ?? 0) > 0;
  }

  private finish(reason: string, graceMs = 0): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    clearInterval(this.heartbeat);
    if (graceMs === 0) this.session.destroy();
    else setTimeout(() => this.session.destroy(), graceMs).unref();
    this.logger.debug(`session of ${this.deviceId} closed: ${reason}`);
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}

/** The device's response headers; a stream that errs or closes first rejects with `unanswered()` (its reset code is set by then). */
function responseHeaders(stream: ClientHttp2Stream, unanswered: () => DomainError): Promise<StreamFields> {
  return new Promise((resolve, reject) => {
    const onResponse = (headers: StreamFields) => {
      stream.off('error', onError);
      stream.off('close', onClose);
      resolve(headers);
    };
    const onError = () => {
      stream.off('response', onResponse);
      stream.off('close', onClose);
      reject(unanswered());
    };
    const onClose = () => onError();
    stream.once('response', onResponse);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
