import { Duplex } from 'node:stream';
import type { QuinnStream } from './binding';

/** One read takes up to this much: large reads keep the per-call cost (a native round trip) small. */
const READ_BYTES = 256 * 1024;

/**
 * A quinn bidirectional stream as a Duplex the tunnel code uses like a socket. Reads are pulled
 * (one outstanding read, only while the consumer wants data), writes resolve once quinn took the
 * bytes under its flow control, so QUIC's windows are the backpressure on both sides.
 */
export class QuinnDuplex extends Duplex {
  private reading = false;

  constructor(
    private readonly stream: QuinnStream,
    readonly remoteAddress: string,
  ) {
    super({ allowHalfOpen: true, highWaterMark: READ_BYTES });
  }

  override _read(): void {
    if (this.reading) return;
    this.reading = true;
    void this.pull();
  }

  private async pull(): Promise<void> {
    try {
      for (;;) {
        const chunk = await this.stream.read(READ_BYTES);
        if (this.destroyed) return;
        if (chunk === null) {
          this.push(null);
          return;
        }
        if (!this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))) break;
      }
    } catch (error) {
      this.destroy(new Error(`QUIC stream: ${(error as Error).message}`));
    } finally {
      this.reading = false;
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.send(chunk, callback);
  }

  /** HTTP/2 writes many small frames: hand them to quinn as one buffer. */
  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.send(Buffer.concat(chunks.map(({ chunk }) => chunk)), callback);
  }

  private send(chunk: Buffer, callback: (error?: Error | null) => void): void {
    this.stream.write(chunk).then(() => callback(), (error: Error) => callback(new Error(`QUIC stream: ${error.message}`)));
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.stream.finishWrite().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (error) void this.stream.resetWrite().catch(() => undefined);
    void this.stream.stopRead().catch(() => undefined);
    callback(error);
  }
}
