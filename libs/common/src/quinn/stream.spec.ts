import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  /**
   * The binding backs each chunk with the whole native read buffer, however few bytes came back.
   * An idle tunnel's control stream waits in its next read for hours: nothing may still hold
   * the previous chunk meanwhile (an async read loop's suspended frame did: 16 KiB per idle tunnel).
   */
  it('holds no chunk the consumer took while its next read waits', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let next: Uint8Array | undefined = new Uint8Array(new ArrayBuffer(16 * 1024), 0, 147);
    const backing = new WeakRef(next.buffer);
    // Pending reads stay reachable, as the binding's are (a global handle until they settle).
    const pending: Promise<null>[] = [];
    const native = {
      ...fakeStream(),
      read: () => {
        const chunk = next;
        next = undefined;
        if (chunk) return Promise.resolve(chunk);
        pending.push(new Promise<null>(() => undefined));
        return pending[pending.length - 1];
      },
    };
    const duplex = new QuinnDuplex(native, '127.0.0.1', { minReadBytes: 1024 });
    const length = await new Promise<number>((resolve) => duplex.once('data', (chunk: Buffer) => resolve(chunk.length)));
    expect(length).toBe(147);
    while (pending.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(backing.deref()).toBeUndefined();
    duplex.destroy();
  });

  it('starts a mostly idle stream at its own small read size and grows it while reads come back full', async () => {
    const sizes: number[] = [];
    let full = 3;
    const native = {
      ...fakeStream(),
      read: async (maxLen: number) => {
        sizes.push(maxLen);
        return full-- > 0 ? new Uint8Array(maxLen) : null;
      },
    };
    const duplex = new QuinnDuplex(native, '127.0.0.1', { minReadBytes: 1024 });
    duplex.resume();
    await new Promise((resolve) => duplex.once('end', resolve));
    expect(sizes).toEqual([1024, 2048, 4096, 8192]);
  });
});
