import { encodeFrame, FrameType, resizeFrame, signalFrame } from '@svc/common';
import { clientFramesProblem } from './client-frames';

describe('clientFramesProblem', () => {
  const stdin = encodeFrame(FrameType.STDIN, 'ls\n');
  it.each([
    ['one STDIN frame', stdin, undefined],
    ['several client frames', Buffer.concat([stdin, resizeFrame({ cols: 80, rows: 24 }), signalFrame({ signal: 'SIGINT' }), encodeFrame(FrameType.STDIN_EOF)]), undefined],
    ['empty', Buffer.alloc(0), /empty/],
    ['a cut header', stdin.subarray(0, 3), /header is cut/],
    ['a cut payload', stdin.subarray(0, stdin.length - 1), /payload is cut/],
    ['a frame the device sends', encodeFrame(FrameType.STDOUT, 'x'), /frame type 1/],
    ['an EXIT frame', encodeFrame(FrameType.EXIT, '{}'), /frame type 5/],
    ['an oversized length', Buffer.from([FrameType.STDIN, 0xff, 0xff, 0xff, 0xff]), /exceeds/],
  ])('%s', (_name, message, problem) => {
    const found = clientFramesProblem(message);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});
