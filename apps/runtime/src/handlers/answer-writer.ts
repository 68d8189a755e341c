import type { Duplex } from 'node:stream';

/** Answers are handed to HTTP/2 this much at a time, each after the stream took the one before. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Writes a whole answer (a listing, an outcome) with flow control and ends the stream: chunk by
 * chunk, waiting for `drain` whenever `write()` says the stream is full, so that a large answer
 * never sits in one buffer in front of a slow carrier. Resolves once the stream finished, or is
 * gone (the peer left: nobody is left to answer).
 */
export async function writeAnswer(stream: Duplex, answer: string | Buffer): Promise<void> {
  await writeWithFlowControl(stream, answer);
  if (stream.destroyed || stream.writableEnded) return;
  stream.end();
  await settled(stream, 'finish');
}

/** The chunked, flow-controlled write of writeAnswer, leaving the stream open (more follows). */
export async function writeWithFlowControl(stream: Duplex, data: string | Buffer): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
    if (stream.destroyed || stream.writableEnded) return;
    if (!stream.write(bytes.subarray(offset, offset + CHUNK_BYTES))) await settled(stream, 'drain');
  }
}

function settled(stream: Duplex, event: 'drain' | 'finish'): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off(event, done).off('close', done);
      resolve();
    };
    stream.on(event, done).on('close', done);
  });
}
