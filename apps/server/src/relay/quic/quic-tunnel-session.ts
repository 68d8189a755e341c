import type { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import {
  DeviceOfflineError,
  encodeFieldBlock,
  encodeStreamArgs,
  FieldBlockReader,
  HelloRequest,
  QuinnConnection,
  QuinnOperationStream,
  TUNNEL_HEADERS,
  TUNNEL_LIMITS,
  tunnelPath,
} from '@svc/common';
import { deviceRefusal } from '../device-error';
import type { StreamFields, StreamRequest, TunnelCloseOptions, TunnelSession, TunnelStream } from '../tunnel-carrier';

/** A refusal body larger than this is cut: it only carries `{code, message}`. */
/** After the close message, the runtime gets this long to read it and hang up before the connection is cut. */
const GOAWAY_GRACE_MS = 1000;
/** A runtime that says it is going (its own shutdown) gets this long to finish the answers in flight. */
const DEVICE_GOAWAY_DRAIN_MS = 5000;

/**
 * A tunnel over QUIC with one stream per operation (docs/protocol.md, "One QUIC stream per
 * operation"): the runtime's first stream carried the hello and stays open as the control
 * stream; each operation is a bidirectional stream this server opens, with a header block each
 * way, the body, and trailers where announced. quinn's own flow control and congestion control
 * are the only ones: no HTTP/2 on top. Liveness is QUIC's: the runtime PINGs every 5 s, and a
 * connection silent for the idle timeout closes, which ends this session.
 */
export class QuicTunnelSession implements TunnelSession {
  readonly carrier = 'quic' as const;
  private closedReason: string | null = null;
  private readonly closeListeners: ((reason: string) => void)[] = [];
  private readonly streams = new Set<QuinnOperationStream>();
  private readonly logger = new Logger('QuicTunnelSession');
  private readonly gone: Promise<void>;
  private streamNumber = 0;
  /** Set while a device's goaway lets the streams in flight finish: cuts the connection once the last one closed. */
  private drained: (() => void) | undefined;
  /** Set while streams drain: cuts them and the connection now. */
  private cutDraining: (() => void) | undefined;

  constructor(
    readonly deviceId: string,
    readonly runtime: HelloRequest['runtime'],
    readonly remoteAddress: string,
    private readonly connection: QuinnConnection,
    /** The carrier's one `connection.closed()`: settles once the connection is gone. */
    closed: Promise<void>,
    /** The runtime's first stream (the hello's): close messages, both ways. */
    private readonly control: Duplex,
  ) {
    this.gone = closed.then(() => this.finish('connection closed'));
    const messages = new FieldBlockReader();
    control.on('data', (chunk: Buffer) => {
      try {
        for (let rest: Buffer | undefined = chunk; rest && rest.length > 0; ) {
          const block = messages.take(rest);
          // As HTTP/2's GOAWAY: no new operations, but the ones in flight end with their answers
          // (a runtime stopping sends the exit of the commands it killed), then the connection goes.
          if (block?.fields.type === 'goaway') this.finish(`device closed the tunnel: ${String(block.fields.reason ?? '')}`, 0, DEVICE_GOAWAY_DRAIN_MS);
          rest = block?.rest;
        }
      } catch (error) {
        this.finish(`protocol error: ${(error as Error).message}`);
      }
    });
    control.once('close', () => this.finish('connection closed'));
    control.resume();
  }

  async openStream(request: StreamRequest): Promise<TunnelStream> {
    if (this.closedReason !== null) throw new DeviceOfflineError();
    let stream: QuinnOperationStream;
    try {
      stream = new QuinnOperationStream(await this.connection.outboundStream(), this.remoteAddress, 'opener');
    } catch {
      throw new DeviceOfflineError();
    }
    if (this.closedReason !== null) {
      stream.reset();
      throw new DeviceOfflineError();
    }
    // Whoever holds the body listens for its errors; none may reach the process unheard.
    stream.on('error', () => undefined);
    const number = ++this.streamNumber;
    this.streams.add(stream);
    stream.once('close', () => {
      this.streams.delete(stream);
      if (this.streams.size === 0) this.drained?.();
      // Cut short (reset by either side): tell the runtime, which may be waiting on neither direction.
      if (!stream.completed && this.closedReason === null && !this.control.destroyed) this.control.write(encodeFieldBlock({ type: 'cancel', stream: String(number) }));
    });
    const trailers = new Promise<StreamFields>((resolve) => {
      stream.once('trailers', (fields: StreamFields) => resolve(fields));
      stream.once('close', () => resolve({}));
    });
    stream.sendHead(
      {
        ':method': 'POST',
        ':path': tunnelPath(request.op),
        [TUNNEL_HEADERS.args]: encodeStreamArgs(request.args),
        [TUNNEL_HEADERS.requestId]: request.requestId,
        [TUNNEL_HEADERS.actor]: request.actor,
        [TUNNEL_HEADERS.stream]: String(number),
      },
      request.trailers === true,
    );
    let headers: StreamFields;
    try {
      headers = await stream.readHead();
    } catch {
      stream.reset();
      throw new DeviceOfflineError();
    }
    const status = Number(headers[':status']);
    if (status !== 200) throw await deviceRefusal(stream, status, (readToEnd) => (readToEnd ? stream.end() : stream.reset()));
    return {
      body: stream,
      headers,
      trailers,
      endWithTrailers: (fields) => stream.endWithTrailers(fields),
      abort: () => stream.reset(),
    };
  }

  /**
   * A close message naming the reason on the control stream, then the connection is cut within a
   * grace period: at once, or with `drain` once the streams in flight closed (bounded).
   */
  close(reason: string, options?: TunnelCloseOptions): Promise<void> {
    if (this.closedReason === null) {
      this.finish(reason, GOAWAY_GRACE_MS, options?.drain ? TUNNEL_LIMITS.replacedTunnelDrainMs : 0);
      if (!this.control.destroyed) this.control.end(encodeFieldBlock({ type: 'goaway', reason }));
    } else if (!options?.drain) this.cutDraining?.();
    return this.gone;
  }

  onClosed(listener: (reason: string) => void): void {
    if (this.closedReason !== null) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  /** How many operation streams are open (tests, and the fleet's numbers). */
  get openStreams(): number {
    return this.streams.size;
  }

  /**
   * Marks the session closed (no new streams) and cuts the connection `graceMs` after its streams
   * are done (the runtime reads the close message and hangs up itself meanwhile). Without
   * `drainMs` the streams in flight are reset now; with it they may finish for that long, and the
   * grace starts once the last one closed.
   */
  private finish(reason: string, graceMs = 0, drainMs = 0): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    let deadline: NodeJS.Timeout | undefined;
    const cut = () => {
      clearTimeout(deadline);
      this.drained = undefined;
      this.cutDraining = undefined;
      for (const stream of this.streams) stream.reset();
      this.streams.clear();
      this.connection.abort();
    };
    const cutAfterGrace = () => {
      if (graceMs === 0) cut();
      else setTimeout(cut, graceMs).unref();
    };
    if (drainMs === 0 || this.streams.size === 0) {
      for (const stream of this.streams) stream.reset();
      this.streams.clear();
      cutAfterGrace();
    } else {
      deadline = setTimeout(cut, drainMs);
      deadline.unref();
      this.cutDraining = cut;
      this.drained = () => {
        this.drained = undefined;
        this.cutDraining = undefined;
        clearTimeout(deadline);
        cutAfterGrace();
      };
    }
    this.logger.debug(`session of ${this.deviceId} closed: ${reason}`);
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}
