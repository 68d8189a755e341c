import { Duplex } from 'node:stream';
import type { QuinnStream } from './binding';

/**
 * Reads start at MIN_READ_BYTES (or the smaller `minReadBytes` of a stream that is mostly idle)
 * and double, up to MAX_READ_BYTES, while each comes back full: large reads keep the per-call
 * cost (a native round trip) small on a busy stream, small ones keep an idle tunnel small (its
 * pending read holds a native buffer of the full read size: 256 KiB reads cost ~110 KB of server
 * RSS per idle QUIC tunnel, measured with 200 tunnels). A short read halves the size again.
 */
const MIN_READ_BYTES = 16 * 1024;
const MAX_READ_BYTES = 256 * 1024;
/**
 * minReadBytes of a tunnel's control stream (hello, then a few small messages): idle for its whole
 * life, its pending read is most of what an idle tunnel costs above quinn's own state.
 */
export const CONTROL_STREAM_READ_BYTES = 1024;
/** Bytes accepted from the writer before quinn took the previous ones (one batch ahead). */
const WRITE_AHEAD_BYTES = 1024 * 1024;

/**
 * A quinn bidirectional stream as a Duplex the tunnel code uses like a socket. Reads are pulled
 * (one outstanding read, only while the consumer wants data), writes resolve once quinn took the
 * bytes under its flow control, so QUIC's windows are the backpressure on both sides.
 */
export class QuinnDuplex extends Duplex {
  private reading = false;
  private readonly minReadBytes: number;
  private readBytes: number;
  private writing = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private inFlightBytes = 0;
  /** Write callbacks held back until the batch before them left. */
  private waiting: ((error?: Error | null) => void)[] = [];
  private drainedListeners: (() => void)[] = [];

  constructor(
    protected readonly stream: QuinnStream,
    readonly remoteAddress: string,
    options: { minReadBytes?: number } = {},
  ) {
    super({ allowHalfOpen: true, highWaterMark: MAX_READ_BYTES });
    this.minReadBytes = Math.min(options.minReadBytes ?? MIN_READ_BYTES, MIN_READ_BYTES);
    this.readBytes = this.minReadBytes;
  }

  override _read(): void {
    if (this.reading) return;
    this.reading = true;
    void this.pull();
  }

  private async pull(): Promise<void> {
    try {
      while (await this.readOnce());
    } catch (error) {
      if (!this.destroyed) this.readFailed(new Error(`QUIC stream: ${(error as Error).message}`));
    } finally {
      this.reading = false;
    }
  }

  /**
   * One native read, handed on; returns whether to read again now. Its own function so that no
   * suspended frame keeps the previous chunk while the next read waits: an async loop's frame
   * holds its last values across the await, and a chunk is backed by the whole native read
   * buffer however few bytes it carries (an idle tunnel then pinned its last 16 KiB read, on top
   * of the pending one's).
   */
  private async readOnce(): Promise<boolean> {
    const chunk = await this.stream.read(this.readBytes);
    if (this.destroyed) return false;
    if (chunk === null) {
      this.received(null);
      return false;
    }
    if (chunk.byteLength >= this.readBytes) this.readBytes = Math.min(MAX_READ_BYTES, this.readBytes * 2);
    else if (chunk.byteLength < this.readBytes / 2) this.readBytes = Math.max(this.minReadBytes, this.readBytes / 2);
    return this.received(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  /** Bytes read from quinn (null: the peer finished); returns whether more are wanted now. */
  protected received(chunk: Buffer | null): boolean {
    return this.push(chunk);
  }

  /** The peer reset its side, or the connection is gone. */
  protected readFailed(error: Error): void {
    this.destroy(error);
  }

  /**
   * The peer stopped reading (STOP_SENDING), or the connection is gone. Returns what the writers
   * still waiting for room are told: by default the error, and the stream is destroyed.
   */
  protected writeFailed(error: Error): Error | null {
    this.destroy(error);
    return error;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.queue(chunk, callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    for (let i = 0; i < chunks.length - 1; i++) this.queue(chunks[i].chunk);
    this.queue(chunks[chunks.length - 1].chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flushed(() => this.stream.finishWrite().then(() => callback(), callback));
  }

  /**
   * Writes are coalesced: while one native write is in flight, the next ones gather (accepted at
   * once up to WRITE_AHEAD_BYTES), then leave as one buffer. Each native write costs a round trip
   * to quinn's threads; one per small HTTP/2 frame would bound the stream at a few MB/s.
   */
  protected queue(chunk: Buffer, callback?: (error?: Error | null) => void): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (callback) {
      if (this.pendingBytes + this.inFlightBytes <= WRITE_AHEAD_BYTES) callback();
      else this.waiting.push(callback);
    }
    if (!this.writing) void this.writeLoop();
  }

  private async writeLoop(): Promise<void> {
    this.writing = true;
    let released: ((error?: Error | null) => void)[] = [];
    try {
      while (this.pending.length > 0 && !this.destroyed) {
        const batch = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
        this.pending = [];
        this.inFlightBytes = this.pendingBytes;
        this.pendingBytes = 0;
        // Once this batch leaves, whoever waits for room may write again.
        released = this.waiting.splice(0);
        await this.stream.write(batch);
        this.inFlightBytes = 0;
        for (const callback of released.splice(0)) callback();
      }
    } catch (error) {
      const failure = new Error(`QUIC stream: ${(error as Error).message}`);
      this.pending = [];
      this.pendingBytes = 0;
      this.inFlightBytes = 0;
      const told = this.writeFailed(failure);
      for (const callback of [...released, ...this.waiting.splice(0)]) callback(told);
    } finally {
      this.writing = false;
      const drained = this.drainedListeners.splice(0);
      for (const listener of drained) listener();
    }
  }

  protected flushed(then: () => void): void {
    if (!this.writing && this.pending.length === 0) then();
    else this.drainedListeners.push(then);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (error) void this.stream.resetWrite().catch(() => undefined);
    void this.stream.stopRead().catch(() => undefined);
    callback(error);
  }
}
