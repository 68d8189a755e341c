/**
 * The shell and exec streams' frames as the terminal bridge carries them (docs/protocol.md,
 * docs/dashboard.md): `type:u8 | length:u32be | payload`. The server sends exactly one frame per
 * message; the browser sends whole frames. libs/common's codec is built on Node's Buffer and
 * streams, so the browser has this small one of its own.
 */
export const FrameType = {
  STDOUT: 1,
  STDERR: 2,
  STDIN: 3,
  STDIN_EOF: 4,
  EXIT: 5,
  ERROR: 6,
  RESIZE: 7,
  SIGNAL: 8,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

const HEADER_BYTES = 5;
const encoder = new TextEncoder();

export interface Frame {
  type: number;
  payload: Uint8Array;
}

export interface ExitBody {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
}

export interface ErrorBody {
  code: string;
  message: string;
}

/** One frame: text is sent as UTF-8, an object as its JSON. */
export function encodeFrame(type: FrameType, payload: Uint8Array | string | object = new Uint8Array(0)): Uint8Array {
  const body = payload instanceof Uint8Array ? payload : encoder.encode(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const frame = new Uint8Array(HEADER_BYTES + body.length);
  const view = new DataView(frame.buffer);
  view.setUint8(0, type);
  view.setUint32(1, body.length);
  frame.set(body, HEADER_BYTES);
  return frame;
}

/** The one frame of a server message; throws on a message that is not exactly one whole frame. */
export function decodeFrame(message: ArrayBuffer): Frame {
  if (message.byteLength < HEADER_BYTES) throw new Error('The server sent a message shorter than a frame header');
  const view = new DataView(message);
  const length = view.getUint32(1);
  if (HEADER_BYTES + length !== message.byteLength) throw new Error('The server sent a message that is not one whole frame');
  return { type: view.getUint8(0), payload: new Uint8Array(message, HEADER_BYTES, length) };
}

/** The JSON body of an EXIT or ERROR frame. */
export function frameJson<T>(frame: Frame): T {
  return JSON.parse(new TextDecoder().decode(frame.payload)) as T;
}
