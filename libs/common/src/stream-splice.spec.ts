import { connect, createServer } from 'node:http2';
import { Duplex, PassThrough } from 'node:stream';
import { coalesceWrites, splice, SPLICE_BUFFER_BYTES } from './stream-splice';

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

/**
 * As an HTTP/2 stream: a write completes only on a later turn of the event loop (once nghttp2 sent
 * it), or when `release()` is called if `held` is set. High-water mark the default 16 KiB.
 */
function laterCompletingEnd(held = false): { stream: Duplex; writes: Buffer[][]; release: () => void } {
  const writes: Buffer[][] = [];
  const pending: (() => void)[] = [];
  const stream = new Duplex({
    allowHalfOpen: true,
    read() {},
    writev(chunks, callback) {
      writes.push(chunks.map(({ chunk }) => chunk as Buffer));
      if (held) pending.push(callback);
      else setImmediate(callback);
    },
  });
  return { stream, writes, release: () => pending.splice(0).forEach((done) => done()) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

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

describe('splice buffering', () => {
  it('passes on all a turn delivered as one batch even when the far side completes writes a turn later', async () => {
    const source = new PassThrough({ allowHalfOpen: true });
    const target = laterCompletingEnd();
    void splice({ stream: source, abort: () => source.destroy() }, { stream: target.stream, abort: () => target.stream.destroy() });
    await turn();
    // Eight 16 KiB records in one turn: `pipe` stopped after the first (write() false at 16 KiB)
    // and passed one on per turn.
    const chunks = Array.from({ length: 8 }, (_, i) => Buffer.alloc(16 * 1024, i));
    for (const chunk of chunks) source.write(chunk);
    for (let i = 0; i < 4; i++) await turn();
    expect(target.writes).toHaveLength(1);
    expect(Buffer.concat(target.writes[0])).toEqual(Buffer.concat(chunks));
    source.destroy();
    target.stream.destroy();
  });

  it('stops reading a side while the other holds SPLICE_BUFFER_BYTES unwritten, and delivers all of it once writes complete', async () => {
    const source = new PassThrough({ allowHalfOpen: true });
    const target = laterCompletingEnd(true);
    const done = splice({ stream: source, abort: () => source.destroy() }, { stream: target.stream, abort: () => target.stream.destroy() });
    const chunk = Buffer.alloc(64 * 1024, 7);
    const total = 4 * SPLICE_BUFFER_BYTES;
    for (let sent = 0; sent < total; sent += chunk.length) source.write(chunk);
    source.end();
    for (let i = 0; i < 6; i++) await turn();
    const taken = target.writes.flat().reduce((sum, b) => sum + b.length, 0);
    expect(taken).toBeGreaterThanOrEqual(SPLICE_BUFFER_BYTES);
    expect(taken).toBeLessThan(SPLICE_BUFFER_BYTES + 2 * chunk.length);
    expect(source.readableLength).toBeGreaterThan(0); // the rest waits on the source's side
    while (target.writes.flat().reduce((sum, b) => sum + b.length, 0) < total) {
      target.release();
      await turn();
    }
    target.release();
    await turn();
    expect(target.stream.writableEnded).toBe(true); // the source's end was passed on
    expect(target.writes.flat().reduce((sum, b) => sum + b.length, 0)).toBe(total);
    target.stream.push(null);
    target.stream.resume();
    expect(await done).toEqual({ aborted: false });
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

describe('splice of an HTTP/2 stream', () => {
  it('relays an answer that arrived whole, END_STREAM included, before the splice began, without aborting', async () => {
    // Device → server bytes are held, then delivered in one read: response headers, data and
    // END_STREAM land together, so the HTTP/2 stream is closed before anyone read its answer.
    let held: Buffer[] | null = null;
    let serverEnd!: Duplex;
    const deviceEnd = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        if (held) held.push(chunk);
        else serverEnd.push(chunk);
        callback();
      },
    });
    serverEnd = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        deviceEnd.push(chunk);
        callback();
      },
    });
    const device = createServer();
    device.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('whole small file', () => setImmediate(() => {
        const all = Buffer.concat(held!);
        held = null;
        serverEnd.push(all);
      }));
    });
    device.emit('connection', deviceEnd);
    const session = connect('http://device', { createConnection: () => serverEnd });
    try {
      await new Promise((resolve) => session.once('remoteSettings', resolve));
      held = [];
      const stream = session.request({ ':method': 'POST', ':path': '/v1/fs/read' }, { endStream: true });
      await new Promise((resolve) => stream.once('response', resolve));
      const received: Buffer[] = [];
      const client = new Duplex({
        allowHalfOpen: true,
        read() {},
        write(chunk: Buffer, _encoding, callback) {
          received.push(chunk);
          callback();
        },
      });
      client.push(null);
      const aborts: string[] = [];
      const outcome = await splice({ stream, abort: () => aborts.push('device') }, { stream: client, abort: () => aborts.push('client') });
      expect(outcome).toEqual({ aborted: false });
      expect(aborts).toEqual([]);
      expect(Buffer.concat(received).toString()).toBe('whole small file');
    } finally {
      session.destroy();
      deviceEnd.destroy();
    }
  });
});
