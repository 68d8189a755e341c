import { FRAME_HEADER_BYTES, FrameType, TUNNEL_LIMITS } from '@svc/common';

/** What a browser may send toward the device: the client's frames of the shell and exec streams. */
const CLIENT_FRAME_TYPES: ReadonlySet<number> = new Set([FrameType.STDIN, FrameType.STDIN_EOF, FrameType.RESIZE, FrameType.SIGNAL]);

/**
 * Checks that one WebSocket message from the browser is a sequence of whole client frames
 * (`type:u8 | length:u32be | payload`); answers what is wrong, or undefined. Whole frames per
 * message let the bridge write messages to the device stream unchanged without ever splicing a
 * browser's partial frame into the device's frame stream.
 */
export function clientFramesProblem(message: Buffer): string | undefined {
  if (message.length === 0) return 'an empty message carries no frame';
  for (let offset = 0; offset < message.length; ) {
    if (message.length - offset < FRAME_HEADER_BYTES) return 'a message must hold whole frames (a frame header is cut)';
    const type = message.readUInt8(offset);
    const length = message.readUInt32BE(offset + 1);
    if (length > TUNNEL_LIMITS.frameMaxPayload) return `frame payload of ${length} bytes exceeds ${TUNNEL_LIMITS.frameMaxPayload}`;
    if (!CLIENT_FRAME_TYPES.has(type)) return `frame type ${type} is not one a client sends (STDIN 3, STDIN_EOF 4, RESIZE 7, SIGNAL 8)`;
    offset += FRAME_HEADER_BYTES + length;
    if (offset > message.length) return 'a message must hold whole frames (a frame payload is cut)';
  }
  return undefined;
}
