import { Duplex } from 'node:stream';
import { TUNNEL_HTTP2 } from '@svc/common';

const FRAME_HEADER_BYTES = 9;
const TYPE_SETTINGS = 0x4;
const TYPE_PUSH_PROMISE = 0x5;
const FLAG_ACK = 0x1;
const SETTING_BYTES = 6;

/**
 * Sits between a tunnel's byte stream and the server's HTTP/2 session and reads the runtime's frame
 * headers as they pass. Node does not report most connection errors nghttp2 finds (an oversized
 * frame, a malformed SETTINGS frame): nghttp2 sends GOAWAY and stops reading, the socket stays
 * open, and the device would look online until the keep-alive gave up. The frames this guard
 * refuses are the ones a well-behaved runtime never sends; `onViolation` closes the tunnel.
 */
export class H2FrameGuard extends Duplex {
  private header = Buffer.alloc(0);
  /** Payload bytes of the current frame still to pass before the next header. */
  private payloadLeft = 0;
  private violated = false;

  constructor(
    private readonly inner: Duplex,
    private readonly onViolation: (reason: string) => void,
  ) {
    super({ allowHalfOpen: true });
    inner.on('data', (chunk: Buffer) => {
      if (this.violated) return;
      this.inspect(chunk);
      if (!this.violated && !this.push(chunk)) inner.pause();
    });
    inner.on('end', () => this.push(null));
    inner.on('error', (err) => this.destroy(err));
    inner.on('close', () => this.destroy());
  }

  override _read(): void {
    this.inner.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.inner.write(chunk, encoding, callback);
  }

  /**
   * HTTP/2 hands over a frame header and its payload as separate buffers, all at once: they go
   * out in one write, so that TLS makes full records and one syscall of them rather than one
   * for each 9-byte header.
   */
  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.inner.cork();
    chunks.forEach(({ chunk }, i) => (i === chunks.length - 1 ? this.inner.write(chunk, callback) : this.inner.write(chunk)));
    this.inner.uncork();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.inner.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner.destroy();
    callback(error);
  }

  private inspect(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.payloadLeft > 0) {
        const skip = Math.min(this.payloadLeft, chunk.length - offset);
        this.payloadLeft -= skip;
        offset += skip;
        continue;
      }
      const take = Math.min(FRAME_HEADER_BYTES - this.header.length, chunk.length - offset);
      this.header = Buffer.concat([this.header, chunk.subarray(offset, offset + take)]);
      offset += take;
      if (this.header.length < FRAME_HEADER_BYTES) return;
      const problem = frameProblem(this.header);
      this.payloadLeft = this.header.readUIntBE(0, 3);
      this.header = Buffer.alloc(0);
      if (problem) {
        this.violated = true;
        this.inner.pause();
        this.onViolation(problem);
        return;
      }
    }
  }
}

/** What is wrong with a frame header the runtime sent, or null. */
export function frameProblem(header: Buffer): string | null {
  const length = header.readUIntBE(0, 3);
  const type = header[3];
  const flags = header[4];
  const streamId = header.readUInt32BE(5) & 0x7fffffff;
  if (length > TUNNEL_HTTP2.maxFrameSize) return `frame of ${length} bytes exceeds ${TUNNEL_HTTP2.maxFrameSize}`;
  if (type === TYPE_PUSH_PROMISE) return 'PUSH_PROMISE (push is disabled)';
  if (type === TYPE_SETTINGS) {
    if (streamId !== 0) return 'SETTINGS on a stream';
    if (flags & FLAG_ACK ? length !== 0 : length % SETTING_BYTES !== 0) return `SETTINGS frame of ${length} bytes`;
  }
  return null;
}
