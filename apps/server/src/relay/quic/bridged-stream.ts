import { Duplex } from 'node:stream';
import { BRIDGE_WINDOW_BYTES, ToWorker } from './quic-bridge-messages';

/**
 * The main thread's end of one bridged QUIC stream: a Duplex the tunnel code uses like a socket.
 * Reads credit bytes back to the worker once the consumer takes them (push() accepted them, or
 * the next _read() asked for more); writes wait for credit, so at most one window is in transit.
 */
export class BridgedStream extends Duplex {
  /** Bytes received and not yet credited back (the consumer has not taken them). */
  private uncredited = 0;
  /** Bytes we may still send before the worker credits some back. */
  private sendCredit = BRIDGE_WINDOW_BYTES;
  private pendingWrite: { chunk: Buffer; callback: (error?: Error | null) => void } | null = null;

  constructor(
    readonly id: number,
    readonly remoteAddress: string,
    private readonly send: (message: ToWorker) => void,
  ) {
    super({ allowHalfOpen: true });
  }

  /** From the worker: the peer's bytes. */
  received(chunk: Uint8Array): void {
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.uncredited += buffer.length;
    if (this.push(buffer)) this.creditBack();
  }

  /** From the worker: the peer ended its side. */
  receivedEnd(): void {
    this.push(null);
  }

  /** From the worker: it handed this many of our bytes to QUIC. */
  credited(bytes: number): void {
    this.sendCredit += bytes;
    const pending = this.pendingWrite;
    if (pending && this.sendCredit > 0) {
      this.pendingWrite = null;
      this.forward(pending.chunk, pending.callback);
    }
  }

  /** From the worker: the connection is gone. */
  lost(reason: string): void {
    if (!this.destroyed) this.destroy(new Error(`QUIC connection lost: ${reason}`));
  }

  override _read(): void {
    this.creditBack();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.sendCredit > 0) this.forward(chunk, callback);
    else this.pendingWrite = { chunk, callback };
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.send({ t: 'end', id: this.id });
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.send({ t: 'close', id: this.id });
    const pending = this.pendingWrite;
    this.pendingWrite = null;
    pending?.callback(error ?? new Error('stream closed'));
    callback(error);
  }

  private forward(chunk: Buffer, callback: (error?: Error | null) => void): void {
    this.sendCredit -= chunk.length;
    // postMessage copies the bytes; the caller may reuse its buffer at once.
    this.send({ t: 'data', id: this.id, chunk: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length) });
    callback();
  }

  private creditBack(): void {
    if (this.uncredited === 0) return;
    this.send({ t: 'credit', id: this.id, bytes: this.uncredited });
    this.uncredited = 0;
  }
}
