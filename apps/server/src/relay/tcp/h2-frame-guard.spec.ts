import { PassThrough, Writable } from 'node:stream';
import { frameProblem, H2FrameGuard } from './h2-frame-guard';

const header = (length: number, type: number, flags = 0, stream = 0) => {
  const b = Buffer.alloc(9);
  b.writeUIntBE(length, 0, 3);
  b[3] = type;
  b[4] = flags;
  b.writeUInt32BE(stream, 5);
  return b;
};

describe('frameProblem', () => {
  it.each([
    ['an empty SETTINGS', header(0, 4), null],
    ['SETTINGS with two entries', header(12, 4), null],
    ['a SETTINGS ACK', header(0, 4, 1), null],
    ['DATA of 256 KiB', header(256 * 1024, 0, 0, 1), null],
    ['HEADERS', header(40, 1, 4, 1), null],
    ['SETTINGS of 5 bytes', header(5, 4), /SETTINGS frame of 5 bytes/],
    ['a SETTINGS ACK with a body', header(6, 4, 1), /SETTINGS frame of 6 bytes/],
    ['SETTINGS on a stream', header(6, 4, 0, 1), /SETTINGS on a stream/],
    ['PUSH_PROMISE', header(4, 5, 4, 1), /PUSH_PROMISE/],
    ['a 16 MiB frame', header(0xffffff, 0, 0, 1), /exceeds/],
  ])('%s', (_name, frame, expected) => {
    const problem = frameProblem(frame);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });
});

describe('H2FrameGuard', () => {
  it('passes valid frames split anywhere and stops at the first bad header', async () => {
    const inner = new PassThrough();
    const problems: string[] = [];
    const guard = new H2FrameGuard(inner, (p) => problems.push(p));
    const passed: Buffer[] = [];
    guard.on('data', (c: Buffer) => passed.push(c));
    const good = Buffer.concat([header(6, 4), Buffer.alloc(6), header(3, 0, 0, 1), Buffer.from('abc')]);
    for (let i = 0; i < good.length; i += 4) inner.write(good.subarray(i, i + 4));
    await new Promise((resolve) => setImmediate(resolve));
    expect(Buffer.concat(passed)).toEqual(good);
    expect(problems).toEqual([]);
    inner.write(header(4, 5, 4, 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(problems).toEqual(['PUSH_PROMISE (push is disabled)']);
    expect(Buffer.concat(passed)).toEqual(good);
  });
});

describe('H2FrameGuard writes', () => {
  it('sends the buffers HTTP/2 hands over at once as one write of the socket, bytes unchanged', async () => {
    const writes: Buffer[][] = [];
    const inner = new Writable({
      writev(chunks, callback) {
        writes.push(chunks.map(({ chunk }) => chunk as Buffer));
        callback();
      },
      write(chunk: Buffer, _encoding, callback) {
        writes.push([chunk]);
        callback();
      },
    });
    const socket = Object.assign(new PassThrough(), { write: inner.write.bind(inner), cork: inner.cork.bind(inner), uncork: inner.uncork.bind(inner) });
    const guard = new H2FrameGuard(socket, () => undefined);
    const frame = [header(3, 0, 0, 1), Buffer.from('abc'), header(2, 0, 0, 1), Buffer.from('de')];
    guard.cork(); // as a JSStreamSocket does with one batch of HTTP/2 output
    for (const buffer of frame) guard.write(buffer);
    guard.uncork();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(Buffer.concat(writes[0])).toEqual(Buffer.concat(frame));
  });
});
