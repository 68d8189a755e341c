import type { QuinnStream } from './binding';
import { QuinnDuplex } from './stream';

/** A native stream whose writes take a while, recording what it was handed. */
function fakeStream(): QuinnStream & { written: Buffer[]; finished: boolean } {
  const fake = {
    written: [] as Buffer[],
    finished: false,
    read: async () => null,
    write: async (data: Uint8Array) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      fake.written.push(Buffer.from(data));
    },
    finishWrite: async () => {
      fake.finished = true;
    },
    resetWrite: async () => undefined,
    stopRead: async () => undefined,
  };
  return fake;
}

describe('QuinnDuplex', () => {
  it('coalesces small writes made while one is in flight, keeps their order, and finishes after the last', async () => {
    const native = fakeStream();
    const duplex = new QuinnDuplex(native, '127.0.0.1');
    const chunks = Array.from({ length: 200 }, (_, i) => Buffer.from(`${i},`));
    // Like HTTP/2 over a JS stream: each write waits for the previous one's callback.
    for (const chunk of chunks) await new Promise((resolve) => duplex.write(chunk, resolve));
    await new Promise<void>((resolve) => duplex.end(resolve));
    expect(Buffer.concat(native.written).toString()).toBe(Buffer.concat(chunks).toString());
    expect(native.written.length).toBeLessThan(10);
    expect(native.finished).toBe(true);
  });

  it('holds a writer back once a megabyte waits for quinn', async () => {
    const native = fakeStream();
    const duplex = new QuinnDuplex(native, '127.0.0.1');
    const done: number[] = [];
    for (let i = 0; i < 4; i++) duplex.write(Buffer.alloc(512 * 1024), () => done.push(i));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done.length).toBeLessThan(4);
    await new Promise<void>((resolve) => duplex.end(resolve));
    expect(done).toEqual([0, 1, 2, 3]);
    expect(Buffer.concat(native.written).length).toBe(2 * 1024 * 1024);
  });
});
