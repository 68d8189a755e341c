import type { Duplex } from 'node:stream';
import { TUNNEL_LIMITS, TUNNEL_PROTOCOL_VERSION } from './constants';
import { TunnelProtocolError } from './tunnel-protocol.error';
import { escapeControls } from '../control-chars';

/**
 * The hello exchange that opens every tunnel, before HTTP/2 starts on the same socket:
 * one frame each way, `length:u32be | UTF-8 JSON`, at most 4 KiB of JSON.
 */
export const HELLO_LENGTH_BYTES = 4;

export interface HelloRequest {
  v: number;
  api_key: string;
  /**
   * `carrier_note`: why the runtime is on the carrier it is when `auto` did not take QUIC (no
   * QUIC binding on its platform, UDP blocked, a near server); the server shows it in device_status.
   */
  runtime: { version: string; boot_id: string; carrier_note?: string };
  /** On QUIC only: the runtime takes one QUIC stream per operation (TUNNEL_QUIC_STREAMS) instead of reverse HTTP/2. */
  streams?: typeof TUNNEL_QUIC_STREAMS;
}

/** A carrier note longer than this is cut (it is one line of a status answer). */
export const CARRIER_NOTE_MAX_CHARS = 200;

/**
 * The value of the hellos' `streams` on QUIC: asked by the runtime, echoed by a server that will
 * open one QUIC stream per operation. A peer that does not echo it speaks reverse HTTP/2 on the
 * hello's stream, as every runtime and server before it did.
 */
export const TUNNEL_QUIC_STREAMS = 'quic-per-operation';

export type HelloResponse =
  | { v: number; ok: true; device_id: string; heartbeat_secs: number; streams?: typeof TUNNEL_QUIC_STREAMS }
  | { v: number; ok: false; error: string };

/** The one refusal a runtime gets for an unknown, revoked or rejected key: it must stop retrying. */
export const HELLO_UNAUTHORIZED = 'unauthorized';
/** The server could not check the key right now (e.g. storage down): retry with backoff. */
export const HELLO_UNAVAILABLE = 'unavailable';
/** The server does not speak the hello's `v`: the runtime needs another version. */
export const HELLO_UNSUPPORTED_VERSION = 'unsupported_version';

export function encodeHello(message: HelloRequest | HelloResponse): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  if (body.length > TUNNEL_LIMITS.helloMaxBytes) {
    throw new TunnelProtocolError(`Hello of ${body.length} bytes exceeds ${TUNNEL_LIMITS.helloMaxBytes}`);
  }
  const prefix = Buffer.allocUnsafe(HELLO_LENGTH_BYTES);
  prefix.writeUInt32BE(body.length, 0);
  return Buffer.concat([prefix, body]);
}

export interface ReadHelloOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * Reads one hello frame from a socket and resolves with its parsed JSON. Bytes that arrive after
 * the frame (the peer's HTTP/2 preface) are put back with `unshift`, and the socket is left
 * paused, so that an HTTP/2 session created on it next sees them. Rejects with a
 * TunnelProtocolError on timeout, oversize, malformed JSON, or a socket closed early; it never
 * destroys the socket itself (the caller decides whether to answer first).
 */
export function readHello(socket: Duplex, options: ReadHelloOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? TUNNEL_LIMITS.helloTimeoutMs;
  const maxBytes = options.maxBytes ?? TUNNEL_LIMITS.helloMaxBytes;
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new TunnelProtocolError('Hello not received in time')), timeoutMs);

    const finish = (error: Error | null, value?: unknown, rest?: Buffer): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onClose);
      socket.off('close', onClose);
      socket.off('error', onError);
      socket.pause();
      if (rest && rest.length > 0) socket.unshift(rest);
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      if (buffered.length < HELLO_LENGTH_BYTES) return;
      const length = buffered.readUInt32BE(0);
      if (length > maxBytes) {
        finish(new TunnelProtocolError(`Hello of ${length} bytes exceeds ${maxBytes}`));
        return;
      }
      if (buffered.length < HELLO_LENGTH_BYTES + length) return;
      const body = buffered.subarray(HELLO_LENGTH_BYTES, HELLO_LENGTH_BYTES + length);
      const rest = buffered.subarray(HELLO_LENGTH_BYTES + length);
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        finish(new TunnelProtocolError('Hello is not JSON'));
        return;
      }
      finish(null, value, rest);
    };
    const onClose = (): void => finish(new TunnelProtocolError('Connection closed before hello'));
    const onError = (err: Error): void => finish(new TunnelProtocolError(`Connection failed before hello: ${err.message}`));

    socket.on('data', onData);
    socket.once('end', onClose);
    socket.once('close', onClose);
    socket.once('error', onError);
    socket.resume();
  });
}

/** A well-formed hello of a protocol version this side does not speak. */
export class UnsupportedHelloVersionError extends TunnelProtocolError {
  constructor(readonly version: unknown) {
    super(`Unsupported hello version ${JSON.stringify(version)}`);
    this.name = 'UnsupportedHelloVersionError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Validates a runtime's hello; anything else is a protocol error (answered as unauthorized). */
export function parseHelloRequest(value: unknown): HelloRequest {
  if (!isObject(value)) throw new TunnelProtocolError('Hello is not a JSON object');
  if (value.v !== TUNNEL_PROTOCOL_VERSION) throw new UnsupportedHelloVersionError(value.v);
  const runtime = value.runtime;
  if (typeof value.api_key !== 'string' || value.api_key.length === 0) {
    throw new TunnelProtocolError('Hello lacks api_key');
  }
  if (!isObject(runtime) || typeof runtime.version !== 'string' || typeof runtime.boot_id !== 'string') {
    throw new TunnelProtocolError('Hello lacks runtime.version or runtime.boot_id');
  }
  const note = typeof runtime.carrier_note === 'string' && runtime.carrier_note.length > 0 ? escapeControls(runtime.carrier_note).slice(0, CARRIER_NOTE_MAX_CHARS) : undefined;
  const hello: HelloRequest = { v: value.v, api_key: value.api_key, runtime: { version: runtime.version, boot_id: runtime.boot_id, ...(note === undefined ? {} : { carrier_note: note }) } };
  if (value.streams === TUNNEL_QUIC_STREAMS) hello.streams = TUNNEL_QUIC_STREAMS;
  return hello;
}

/** Validates the server's answer to a hello. */
export function parseHelloResponse(value: unknown): HelloResponse {
  if (!isObject(value) || value.v !== TUNNEL_PROTOCOL_VERSION) {
    throw new TunnelProtocolError('Unsupported hello version');
  }
  if (value.ok === true) {
    if (typeof value.device_id !== 'string' || typeof value.heartbeat_secs !== 'number' || value.heartbeat_secs <= 0) {
      throw new TunnelProtocolError('Hello answer lacks device_id or heartbeat_secs');
    }
    const answer: HelloResponse = { v: value.v, ok: true, device_id: value.device_id, heartbeat_secs: value.heartbeat_secs };
    if (value.streams === TUNNEL_QUIC_STREAMS) answer.streams = TUNNEL_QUIC_STREAMS;
    return answer;
  }
  if (value.ok === false && typeof value.error === 'string') {
    return { v: value.v, ok: false, error: value.error };
  }
  throw new TunnelProtocolError('Malformed hello answer');
}
