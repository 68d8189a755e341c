import { describe, expect, it } from 'vitest';
import { sha256OfStream } from './sha256-stream';

/** A stream of these chunks, as fetch's body or File.stream() hands them out. */
const streamOf = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
const text = (value: string) => new TextEncoder().encode(value);

describe('sha256OfStream', () => {
  it('gives the known digests (FIPS 180-2 examples, the empty input)', async () => {
    await expect(sha256OfStream(streamOf([]))).resolves.toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    await expect(sha256OfStream(streamOf([text('abc')]))).resolves.toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('is the same however the bytes are cut into chunks, and shows each chunk once, in order', async () => {
    const whole = text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq');
    const cuts = [[whole], [whole.subarray(0, 1), whole.subarray(1, 55), whole.subarray(55)], Array.from(whole, (byte) => Uint8Array.of(byte))];
    for (const chunks of cuts) {
      const seen: number[] = [];
      await expect(sha256OfStream(streamOf(chunks), (chunk) => seen.push(...chunk))).resolves.toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
      expect(seen).toEqual(Array.from(whole));
    }
  });
});
