/**
 * The dashboard's browser frame codec (apps/web/src/terminal/frames.ts) against libs/common's, the
 * one the runtime, the CLI and the bridge use: same type numbers, same bytes, and what the browser
 * sends is what the bridge accepts as whole client frames.
 */
import { encodeFrame as nodeEncode, errorFrame, exitFrame, FrameType as NodeFrameType } from '@svc/common';
import { clientFramesProblem } from '../apps/server/src/terminal/client-frames';

// apps/web is an ES module workspace: a CommonJS suite loads it with import().
type Web = typeof import('../apps/web/src/terminal/frames.js', { with: { 'resolution-mode': 'import' } });
const WEB_FRAMES: string = '../apps/web/src/terminal/frames';
let web: Web;
beforeAll(async () => {
  web = (await import(WEB_FRAMES)) as Web;
});

const arrayBuffer = (bytes: Buffer) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;

describe('browser terminal frames', () => {
  it('numbers every frame type as libs/common does', () => {
    for (const [name, value] of Object.entries(web.FrameType)) expect({ name, value: NodeFrameType[name as keyof typeof NodeFrameType] }).toEqual({ name, value });
    expect(Object.keys(web.FrameType).length).toBe(8);
  });

  it.each([
    ['STDIN text', NodeFrameType.STDIN, 'echo hi ✓\r', nodeEncode(NodeFrameType.STDIN, 'echo hi ✓\r')],
    ['Ctrl-C', NodeFrameType.STDIN, '\x03', nodeEncode(NodeFrameType.STDIN, Buffer.from([3]))],
    ['RESIZE', NodeFrameType.RESIZE, { cols: 132, rows: 43 }, nodeEncode(NodeFrameType.RESIZE, JSON.stringify({ cols: 132, rows: 43 }))],
    ['SIGNAL', NodeFrameType.SIGNAL, { signal: 'SIGINT' }, nodeEncode(NodeFrameType.SIGNAL, JSON.stringify({ signal: 'SIGINT' }))],
    ['STDIN_EOF', NodeFrameType.STDIN_EOF, undefined, nodeEncode(NodeFrameType.STDIN_EOF)],
  ] as const)('encodes %s byte for byte as libs/common does', (_name, type, payload, expected) => {
    expect(Buffer.from(web.encodeFrame(type as Parameters<Web['encodeFrame']>[0], payload))).toEqual(expected);
  });

  it('sends what the bridge accepts as whole client frames', () => {
    const { encodeFrame, FrameType } = web;
    const message = Buffer.concat([encodeFrame(FrameType.STDIN, 'ls\r'), encodeFrame(FrameType.RESIZE, { cols: 80, rows: 24 }), encodeFrame(FrameType.SIGNAL, { signal: 'SIGINT' })]);
    expect(clientFramesProblem(message)).toBeUndefined();
  });

  it('decodes the one frame of a server message', () => {
    const { decodeFrame, frameJson, FrameType } = web;
    const exit = decodeFrame(arrayBuffer(exitFrame({ exit_code: 3, signal: null, timed_out: false })));
    expect(exit.type).toBe(FrameType.EXIT);
    expect(frameJson(exit)).toEqual({ exit_code: 3, signal: null, timed_out: false });
    expect(frameJson(decodeFrame(arrayBuffer(errorFrame({ code: 'DEVICE_OFFLINE', message: 'gone' }))))).toEqual({ code: 'DEVICE_OFFLINE', message: 'gone' });
    const out = decodeFrame(arrayBuffer(nodeEncode(NodeFrameType.STDOUT, 'hi\r\n')));
    expect(Buffer.from(out.payload).toString()).toBe('hi\r\n');
  });

  it.each([
    ['a cut header', Buffer.from([1, 0, 0])],
    ['a cut payload', nodeEncode(NodeFrameType.STDOUT, 'hello').subarray(0, 7)],
    ['two frames', Buffer.concat([nodeEncode(NodeFrameType.STDOUT, 'a'), nodeEncode(NodeFrameType.STDOUT, 'b')])],
  ])('refuses a server message with %s', (_name, bytes) => {
    expect(() => web.decodeFrame(arrayBuffer(bytes))).toThrow(/frame/);
  });
});
