import { Duplex, PassThrough } from 'node:stream';
import { coalesceWrites, splice } from './stream-splice';

/** A duplex that records each write it is asked to make (a batch is one entry) and never ends by itself. */
function recordingEnd(): { stream: Duplex; writes: Buffer[][] } {
  const writes: Buffer[][] = [];
  const stream = new Duplex({
    allowHalfOpen: true,
    read() {},
    writev(chunks, callback) {
      writes.push(chunks.map(({ chunk }) => chunk as Buffer));
      callback();
    },
  });
  return { stream, writes };
}

describe('splice', () => {
  it('writes what one side delivered within an event-loop turn as one batch, bytes and order unchanged', async () => {
    const source = new PassThrough({ allowHalfOpen: true });
    const target = recordingEnd();
    void splice({ stream: source, abort: () => source.destroy() }, { stream: target.stream, abort: () => target.stream.destroy() });
    await new Promise((resolve) => setImmediate(resolve));
    // As a TLS read hands over several records, and HTTP/2 a frame's tail, in one turn.
    const chunks = [Buffer.from('first 16 KiB record'), Buffer.from('tail'), Buffer.from('next record')];
    for (const chunk of chunks) source.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(target.writes).toHaveLength(1);
    expect(Buffer.concat(target.writes[0])).toEqual(Buffer.concat(chunks));
    source.destroy();
    target.stream.destroy();
  });
});

describe('coalesceWrites', () => {
  it('releases its cork the moment the source ends, before whoever ends the target', async () => {
    const source = new PassThrough();
    const target = recordingEnd();
    coalesceWrites(source, target.stream);
    const corkedAtEnd = new Promise<number>((resolve) => source.once('end', () => resolve(target.stream.writableCorked)));
    source.pipe(target.stream, { end: false });
    source.end(Buffer.from('last batch'));
    expect(await corkedAtEnd).toBe(0);
  });
});
