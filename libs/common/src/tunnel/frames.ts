import { Transform, TransformCallback } from 'node:stream';
import { FrameType, isFrameType, TUNNEL_LIMITS } from './constants';
import { TunnelProtocolError } from './tunnel-protocol.error';

/**
 * Multiplexed frames of exec and shell streams: `type:u8 | length:u32be | payload`.
 * Unknown types are skipped by the decoder so that a newer peer may add types.
 */
export const FRAME_HEADER_BYTES = 5;

export interface Frame {
  type: FrameType;
  payload: Buffer;
}

export interface ExitFrameBody {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
}

export interface ErrorFrameBody {
  code: string;
  message: string;
}

export interface ResizeFrameBody {
  cols: number;
  rows: number;
}

export interface SignalFrameBody {
  signal: string;
}

export function encodeFrame(type: FrameType, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (body.length > TUNNEL_LIMITS.frameMaxPayload) {
    throw new TunnelProtocolError(`Frame payload of ${body.length} bytes exceeds ${TUNNEL_LIMITS.frameMaxPayload}`);
  }
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(body.length, 1);
  return Buffer.concat([header, body]);
}

/** Encodes data of any size as as many frames of `type` as the payload limit needs. */
export function encodeDataFrames(type: FrameType, data: Buffer): Buffer[] {
  const max = TUNNEL_LIMITS.frameMaxPayload;
  if (data.length <= max) return [encodeFrame(type, data)];
  const frames: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += max) {
    frames.push(encodeFrame(type, data.subarray(offset, offset + max)));
  }
  return frames;
}

export function encodeJsonFrame(type: FrameType, body: object): Buffer {
  return encodeFrame(type, JSON.stringify(body));
}

export const exitFrame = (body: ExitFrameBody): Buffer => encodeJsonFrame(FrameType.EXIT, body);
export const errorFrame = (body: ErrorFrameBody): Buffer => encodeJsonFrame(FrameType.ERROR, body);
export const resizeFrame = (body: ResizeFrameBody): Buffer => encodeJsonFrame(FrameType.RESIZE, body);
export const signalFrame = (body: SignalFrameBody): Buffer => encodeJsonFrame(FrameType.SIGNAL, body);
export const stdinEofFrame = (): Buffer => encodeFrame(FrameType.STDIN_EOF);

/** The JSON body of an EXIT, ERROR, RESIZE or SIGNAL frame; a malformed body is a protocol error. */
export function parseFramePayload<T extends object>(frame: Frame): T {
  let value: unknown;
  try {
    value = JSON.parse(frame.payload.toString('utf8'));
  } catch {
    throw new TunnelProtocolError(`Frame of type ${frame.type} does not carry JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TunnelProtocolError(`Frame of type ${frame.type} does not carry a JSON object`);
  }
  return value as T;
}

/**
 * Streaming decoder: bytes in (any chunking), `Frame` objects out. An oversize length destroys the
 * stream with a TunnelProtocolError before the payload is buffered; so does a stream that ends in
 * the middle of a frame. Being a Transform it is also an async iterable of frames.
 */
export class FrameDecoder extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxPayload: number = TUNNEL_LIMITS.frameMaxPayload) {
    super({ readableObjectMode: true, writableObjectMode: false });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    try {
      this.drainFrames();
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.pendingBytes > 0) {
      callback(new TunnelProtocolError(`Stream ended inside a frame (${this.pendingBytes} bytes left)`));
      return;
    }
    callback();
  }

  private drainFrames(): void {
    while (this.pendingBytes >= FRAME_HEADER_BYTES) {
      const head = this.peekBytes(FRAME_HEADER_BYTES);
      const type = head.readUInt8(0);
      const length = head.readUInt32BE(1);
      if (length > this.maxPayload) {
        throw new TunnelProtocolError(`Frame payload of ${length} bytes exceeds ${this.maxPayload}`);
      }
      if (this.pendingBytes < FRAME_HEADER_BYTES + length) return;
      const frame = this.takeBytes(FRAME_HEADER_BYTES + length).subarray(FRAME_HEADER_BYTES);
      if (isFrameType(type)) this.push({ type, payload: frame } satisfies Frame);
    }
  }

  private peekBytes(bytes: number): Buffer {
    if (this.pending[0].length < bytes) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0];
  }

  private takeBytes(bytes: number): Buffer {
    const all = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
    return taken;
  }
}
