import { TunnelProtocolError } from '../tunnel/tunnel-protocol.error';
import type { QuinnStream } from './binding';
import { encodeFieldBlock, FieldBlock, FieldBlockReader } from './field-block';
import { QuinnDuplex } from './stream';

/** Header field that says the body is chunked and ends with a trailers block. */
export const TRAILERS_FIELD = 'svc-trailers';
const CHUNK_HEADER_BYTES = 4;
const END_OF_CHUNKS = Buffer.alloc(CHUNK_HEADER_BYTES);

/** Who opened the stream: the server (`opener`) or the runtime that accepted it (`acceptor`). */
export type OperationStreamRole = 'opener' | 'acceptor';

type ReadState = 'head' | 'raw' | 'chunk-header' | 'chunk' | 'trailers' | 'done';

/**
 * One operation on its own QUIC stream (docs/protocol.md, "One QUIC stream per operation"), each
 * way: a header block, the body, and — when the header carries `svc-trailers` — the body as
 * `length:u32be` chunks, a zero length, then a trailers block. Without trailers the body is raw
 * bytes, so a forward's data path is whole reads and writes with no framing at all.
 *
 * The Duplex carries the body only; `head` settles with the peer's header block, `'trailers'` is
 * emitted before `'end'`. An abort resets both directions (RESET_STREAM and STOP_SENDING).
 */
export class QuinnOperationStream extends QuinnDuplex {
  readonly head: Promise<FieldBlock>;
  private settleHead!: { resolve: (fields: FieldBlock) => void; reject: (error: Error) => void };
  private readState: ReadState = 'head';
  private readonly blocks = new FieldBlockReader();
  private chunkHeader: Buffer = Buffer.alloc(0);
  private chunkLeft = 0;
  private headSent = false;
  private chunkedOut = false;
  private trailersOut: Record<string, string> | undefined;
  private readStopped = false;
  private writesDiscarded = false;

  constructor(
    stream: QuinnStream,
    remoteAddress: string,
    readonly role: OperationStreamRole,
  ) {
    super(stream, remoteAddress);
    this.head = new Promise((resolve, reject) => (this.settleHead = { resolve, reject }));
    this.head.catch(() => undefined);
  }

  get headersSent(): boolean {
    return this.headSent;
  }

  /** Reads the peer's header block (the body that follows waits in the readable buffer). */
  readHead(): Promise<FieldBlock> {
    this.read(0);
    return this.head;
  }

  /** Sends this side's header block; `trailers` makes the body chunked and end with a trailers block. */
  sendHead(fields: Record<string, string | number | string[] | undefined>, trailers = false): void {
    if (this.headSent) throw new Error('QUIC operation stream: header already sent');
    this.headSent = true;
    this.chunkedOut = trailers;
    this.queue(encodeFieldBlock(trailers ? { ...fields, [TRAILERS_FIELD]: '1' } : fields));
  }

  /** The trailers that end a chunked body (before or during `'wantTrailers'`). */
  sendTrailers(fields: Record<string, string>): void {
    this.trailersOut = fields;
  }

  /** Ends the body with these trailers (a stream whose header announced them). */
  endWithTrailers(fields: Record<string, string>): void {
    this.trailersOut = fields;
    this.end();
  }

  /** Stops reading the peer's body (STOP_SENDING) once this side's answer is out: no reset. */
  stopReading(): void {
    if (this.readStopped || this.destroyed) return;
    this.readStopped = true;
    void this.stream.stopRead().catch(() => undefined);
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
    if (!this.writableEnded) this.end();
  }

  /**
   * The peer said (on the control stream) that it cancelled this operation: a reset is only seen
   * by a read or write in progress, and an operation that waits on neither must stop too.
   */
  cancelledByPeer(): void {
    if (this.destroyed) return;
    this.emit('aborted');
    this.destroy();
  }

  /** Whether both directions completed (FIN read to its end, and sent): else it was cut short. */
  get completed(): boolean {
    return this.readableEnded && this.writableFinished;
  }

  /** Cancels the operation both ways: the peer's reads and writes fail. */
  reset(): void {
    if (this.destroyed) return;
    this.destroy();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.writesDiscarded) return callback();
    if (chunk.length === 0) return callback();
    if (this.chunkedOut) this.queue(chunkHeader(chunk.length));
    this.queue(chunk, callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    if (this.writesDiscarded) return callback();
    if (this.chunkedOut) {
      const total = chunks.reduce((sum, { chunk }) => sum + chunk.length, 0);
      if (total > 0) this.queue(chunkHeader(total));
    }
    for (let i = 0; i < chunks.length - 1; i++) this.queue(chunks[i].chunk);
    this.queue(chunks[chunks.length - 1].chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.writesDiscarded) return callback();
    if (this.chunkedOut) {
      if (this.trailersOut === undefined) this.emit('wantTrailers');
      this.queue(END_OF_CHUNKS);
      this.queue(encodeFieldBlock(this.trailersOut ?? {}));
    }
    this.flushed(() =>
      this.stream.finishWrite().then(
        () => callback(),
        (error: Error) => callback(this.role === 'opener' ? null : error),
      ),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // quinn finishes a dropped send stream cleanly: anything cut short must be reset instead.
    if (!this.writableFinished && !this.writesDiscarded) void this.stream.resetWrite().catch(() => undefined);
    if (!this.readableEnded && !this.readStopped) void this.stream.stopRead().catch(() => undefined);
    if (this.readState === 'head') this.settleHead.reject(error ?? new Error('QUIC operation stream closed before its header'));
    callback(error);
  }

  protected override readFailed(error: Error): void {
    if (this.readStopped) {
      this.push(null);
      return;
    }
    this.emit('aborted');
    this.destroy(error);
  }

  /**
   * The runtime's writes fail only when the server abandoned the operation. The server's fail
   * when the device stopped reading after it answered (an upload refused half-way): the answer
   * is still read to its end, and the rest of the body is dropped.
   */
  protected override writeFailed(error: Error): Error | null {
    if (this.role === 'acceptor') {
      this.emit('aborted');
      this.destroy();
      return error;
    }
    this.writesDiscarded = true;
    if (this.readableEnded) this.destroy();
    else this.once('end', () => this.destroy());
    return null;
  }

  protected override received(chunk: Buffer | null): boolean {
    if (chunk === null) return this.receivedEnd();
    try {
      return this.parse(chunk);
    } catch (error) {
      this.destroy(error as Error);
      return false;
    }
  }

  private receivedEnd(): boolean {
    if (this.readState === 'raw' || this.readState === 'done') return this.push(null);
    this.destroy(new TunnelProtocolError(this.readState === 'head' ? 'QUIC operation stream ended before its header' : 'QUIC operation stream ended inside its body'));
    return false;
  }

  private parse(chunk: Buffer): boolean {
    let wanted = true;
    let rest: Buffer = chunk;
    while (rest.length > 0) {
      switch (this.readState) {
        case 'raw':
          return this.push(rest);
        case 'head':
        case 'trailers': {
          const block = this.blocks.take(rest);
          if (!block) return true;
          rest = block.rest;
          if (this.readState === 'head') {
            this.readState = block.fields[TRAILERS_FIELD] === undefined ? 'raw' : 'chunk-header';
            this.settleHead.resolve(block.fields);
          } else {
            this.readState = 'done';
            this.emit('trailers', block.fields);
          }
          break;
        }
        case 'chunk-header': {
          const needed = CHUNK_HEADER_BYTES - this.chunkHeader.length;
          this.chunkHeader = Buffer.concat([this.chunkHeader, rest.subarray(0, needed)]);
          rest = rest.subarray(needed);
          if (this.chunkHeader.length < CHUNK_HEADER_BYTES) return true;
          this.chunkLeft = this.chunkHeader.readUInt32BE(0);
          this.chunkHeader = Buffer.alloc(0);
          this.readState = this.chunkLeft === 0 ? 'trailers' : 'chunk';
          break;
        }
        case 'chunk': {
          const piece = rest.subarray(0, this.chunkLeft);
          rest = rest.subarray(piece.length);
          this.chunkLeft -= piece.length;
          if (this.chunkLeft === 0) this.readState = 'chunk-header';
          wanted = this.push(piece);
          break;
        }
        case 'done':
          throw new TunnelProtocolError('QUIC operation stream: bytes after its trailers');
      }
    }
    return wanted;
  }
}

function chunkHeader(length: number): Buffer {
  const header = Buffer.allocUnsafe(CHUNK_HEADER_BYTES);
  header.writeUInt32BE(length, 0);
  return header;
}
