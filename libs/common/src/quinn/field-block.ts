import { TunnelProtocolError } from '../tunnel/tunnel-protocol.error';

/**
 * Header fields on a QUIC operation stream (request header, response header, trailers) and the
 * control stream's messages: `length:u32be | UTF-8 JSON object of string fields`, the same names
 * and values the HTTP/2 path puts in its headers (docs/protocol.md, "One QUIC stream per operation").
 */
export type FieldBlock = Record<string, string | string[] | undefined>;

export const FIELD_BLOCK_LENGTH_BYTES = 4;
/** Largest block body: a request's `svc-args` (an exec's env, a long path) fits with room. */
export const FIELD_BLOCK_MAX_BYTES = 256 * 1024;

export function encodeFieldBlock(fields: Record<string, string | number | string[] | undefined>): Buffer {
  const clean: FieldBlock = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) clean[name.toLowerCase()] = typeof value === 'number' ? String(value) : value;
  const body = Buffer.from(JSON.stringify(clean), 'utf8');
  if (body.length > FIELD_BLOCK_MAX_BYTES) throw new TunnelProtocolError(`Field block of ${body.length} bytes exceeds ${FIELD_BLOCK_MAX_BYTES}`);
  const block = Buffer.allocUnsafe(FIELD_BLOCK_LENGTH_BYTES + body.length);
  block.writeUInt32BE(body.length, 0);
  body.copy(block, FIELD_BLOCK_LENGTH_BYTES);
  return block;
}

export function parseFieldBlock(body: Buffer): FieldBlock {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new TunnelProtocolError('Field block is not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TunnelProtocolError('Field block is not a JSON object');
  for (const field of Object.values(value)) {
    if (typeof field !== 'string' && !(Array.isArray(field) && field.every((item) => typeof item === 'string'))) throw new TunnelProtocolError('Field block holds a value that is not a string');
  }
  return value as FieldBlock;
}

/**
 * Gathers one block from bytes that arrive in any chunking. `take(chunk)` returns the block and
 * the bytes that followed it once the block is whole, or undefined while it waits for more.
 * A block announced larger than the limit is a protocol error before it is buffered.
 */
export class FieldBlockReader {
  private buffered: Buffer = Buffer.alloc(0);

  take(chunk: Buffer): { fields: FieldBlock; rest: Buffer } | undefined {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    if (this.buffered.length < FIELD_BLOCK_LENGTH_BYTES) return undefined;
    const length = this.buffered.readUInt32BE(0);
    if (length > FIELD_BLOCK_MAX_BYTES) throw new TunnelProtocolError(`Field block of ${length} bytes exceeds ${FIELD_BLOCK_MAX_BYTES}`);
    const end = FIELD_BLOCK_LENGTH_BYTES + length;
    if (this.buffered.length < end) return undefined;
    const fields = parseFieldBlock(this.buffered.subarray(FIELD_BLOCK_LENGTH_BYTES, end));
    const rest = this.buffered.subarray(end);
    this.buffered = Buffer.alloc(0);
    return { fields, rest };
  }

  /** Bytes of an unfinished block. */
  get pendingBytes(): number {
    return this.buffered.length;
  }
}
