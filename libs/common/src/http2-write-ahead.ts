import { Duplex } from 'node:stream';
import { TUNNEL_HTTP2 } from './tunnel/constants';

/**
 * How much a WriteAheadSocket holds before a write waits for the socket to drain: twice the largest
 * amount of DATA HTTP/2 flow control lets a session have unacknowledged (its peer's session
 * window), so DATA alone never waits, and a flood of frames nothing limits (pings, resets) still
 * does.
 */
export const WRITE_AHEAD_BYTES = 2 * TUNNEL_HTTP2.sessionWindowSize;

/**
 * The socket under one end of an HTTP/2 connection that carries bulk data both ways: a write
 * completes at once while the socket holds less than `limit` bytes.
 *
 * Node's HTTP/2 stops reading its socket while a write of its own is in flight
 * (node_http2.cc MaybeStopReading: a guard against peers that flood it with frames to answer).
 * When both ends are Node and both directions are full (a forward echoing 50 MB each way, an
 * upload during a download), each end's write waits for the other to read, neither reads, and
 * the connection stalls until a keep-alive cuts it. The windows are larger than what the kernel's
 * socket buffers hold, so flow control alone does not prevent it. Over this stream one end always
 * reads on: its writes complete into this buffer, which flow control bounds. One end of each
 * connection is enough; the runtime, the CLI and a dialling replica put it under their sessions.
 */
export class WriteAheadSocket extends Duplex {
  private waiting: (() => void) | null = null;

  constructor(
    private readonly socket: Duplex,
    private readonly limit: number = WRITE_AHEAD_BYTES,
  ) {
    super({ allowHalfOpen: true });
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('drain', () => this.release());
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.socket.write(chunk);
    this.completeWhenRoom(callback);
  }

  /** HTTP/2 hands over frame headers and payloads together: one corked write, full TLS records. */
  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.socket.cork();
    for (const { chunk } of chunks) this.socket.write(chunk);
    this.socket.uncork();
    this.completeWhenRoom(callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.release();
    this.socket.destroy();
    callback(error);
  }

  private completeWhenRoom(callback: () => void): void {
    if (this.socket.writableLength < this.limit) callback();
    else this.waiting = callback;
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}
