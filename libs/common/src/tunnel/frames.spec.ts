import { Readable } from 'node:stream';
import { FrameType, TUNNEL_LIMITS } from './constants';
import {
  encodeDataFrames,
  encodeFrame,
  exitFrame,
  Frame,
  FrameDecoder,
  parseFramePayload,
  stdinEofFrame,
} from './frames';
import { TunnelProtocolError } from './tunnel-protocol.error';

async function decodeChunks(chunks: Buffer[], maxPayload?: number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for await (const frame of Readable.from(chunks, { objectMode: false }).pipe(new FrameDecoder(maxPayload))) {
    frames.push(frame as Frame);
  }
  return frames;
}

const simplify = (frames: Frame[]) => frames.map((f) => ({ type: f.type, payload: f.payload.toString('utf8') }));

describe('frame codec', () => {
  const sequence = Buffer.concat([
    encodeFrame(FrameType.STDOUT, 'hello'),
    encodeFrame(FrameType.STDERR, Buffer.from('oops\n')),
    encodeFrame(FrameType.STDOUT, ''),
    stdinEofFrame(),
    exitFrame({ exit_code: 3, signal: null, timed_out: false }),
  ]);
  const expected = [
    { type: FrameType.STDOUT, payload: 'hello' },
    { type: FrameType.STDERR, payload: 'oops\n' },
    { type: FrameType.STDOUT, payload: '' },
    { type: FrameType.STDIN_EOF, payload: '' },
    { type: FrameType.EXIT, payload: '{"exit_code":3,"signal":null,"timed_out":false}' },
  ];

  it('encodes type, big-endian length and payload', () => {
    expect(encodeFrame(FrameType.STDIN, 'ab')).toEqual(Buffer.from([3, 0, 0, 0, 2, 0x61, 0x62]));
  });

  it.each(Array.from({ length: sequence.length + 1 }, (_, offset) => offset))(
    'decodes the same frames when the bytes are split at offset %i',
    async (offset) => {
      const frames = await decodeChunks([sequence.subarray(0, offset), sequence.subarray(offset)]);
      expect(simplify(frames)).toEqual(expected);
    },
  );

  it('decodes the same frames when the bytes arrive one at a time', async () => {
    const bytes = Array.from(sequence, (b) => Buffer.from([b]));
    expect(simplify(await decodeChunks(bytes))).toEqual(expected);
  });

  it('skips frames of unknown types (forward compatible)', async () => {
    const unknown = Buffer.from([200, 0, 0, 0, 3, 1, 2, 3]);
    const frames = await decodeChunks([unknown, encodeFrame(FrameType.STDOUT, 'x'), Buffer.from([0, 0, 0, 0, 0])]);
    expect(simplify(frames)).toEqual([{ type: FrameType.STDOUT, payload: 'x' }]);
  });

  it.each([
    ['one byte over the limit', TUNNEL_LIMITS.frameMaxPayload + 1],
    ['the largest u32', 0xffffffff],
  ])('fails on a declared length of %s, before buffering the payload', async (_name, length) => {
    const header = Buffer.alloc(5);
    header.writeUInt8(FrameType.STDOUT, 0);
    header.writeUInt32BE(length, 1);
    await expect(decodeChunks([header])).rejects.toThrow(TunnelProtocolError);
  });

  it('accepts a payload of exactly the limit', async () => {
    const payload = Buffer.alloc(TUNNEL_LIMITS.frameMaxPayload, 7);
    const frames = await decodeChunks([encodeFrame(FrameType.STDOUT, payload)]);
    expect(frames[0].payload.length).toBe(TUNNEL_LIMITS.frameMaxPayload);
  });

  it('honours a smaller limit given to the decoder', async () => {
    await expect(decodeChunks([encodeFrame(FrameType.STDOUT, 'abcdef')], 5)).rejects.toThrow(/exceeds 5/);
  });

  it('refuses to encode an oversize payload', () => {
    expect(() => encodeFrame(FrameType.STDOUT, Buffer.alloc(TUNNEL_LIMITS.frameMaxPayload + 1))).toThrow(
      TunnelProtocolError,
    );
  });

  it('splits large data into frames within the limit', async () => {
    const data = Buffer.alloc(TUNNEL_LIMITS.frameMaxPayload * 2 + 10, 1);
    const chunks = encodeDataFrames(FrameType.STDOUT, data);
    expect(chunks).toHaveLength(3);
    const frames = await decodeChunks(chunks);
    expect(Buffer.concat(frames.map((f) => f.payload))).toEqual(data);
  });

  it.each([
    ['a stream ending inside a header', Buffer.from([1, 0, 0])],
    ['a stream ending inside a payload', Buffer.from([1, 0, 0, 0, 4, 0x61])],
  ])('fails on %s', async (_name, bytes) => {
    await expect(decodeChunks([bytes])).rejects.toThrow(/ended inside a frame/);
  });

  it.each([
    ['valid JSON object', '{"code":"TIMEOUT","message":"m"}', { code: 'TIMEOUT', message: 'm' }],
    ['not JSON', 'nope', TunnelProtocolError],
    ['a JSON array', '[1]', TunnelProtocolError],
    ['JSON null', 'null', TunnelProtocolError],
  ])('parses a JSON payload: %s', (_name, text, outcome) => {
    const frame: Frame = { type: FrameType.ERROR, payload: Buffer.from(text) };
    if (outcome === TunnelProtocolError) expect(() => parseFramePayload(frame)).toThrow(TunnelProtocolError);
    else expect(parseFramePayload(frame)).toEqual(outcome);
  });
});
