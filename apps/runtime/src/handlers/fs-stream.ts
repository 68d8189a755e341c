import { resetStream } from '@svc/common';
import { writeAnswer } from './answer-writer';
import { PassThrough, Readable } from 'node:stream';
import type { StreamContext } from '../tunnel/stream-router';
import type { OperationStream } from '../tunnel/operation-stream';

/** Answers `:status 200` with one JSON document as the whole body, written with flow control. */
export async function respondJson(stream: OperationStream, value: unknown): Promise<void> {
  stream.respond({ ':status': 200, 'content-type': 'application/json' });
  await writeAnswer(stream, JSON.stringify(value));
}


/**
 * Runs a transfer as an operation the runtime knows about, so a shutdown cancels it (the stream
 * is reset, which fails the transfer and makes it clean up) and waits until it has.
 */
export async function tracked(stream: OperationStream, context: StreamContext, work: () => Promise<void>): Promise<void> {
  const done = work();
  context.operations.add({
    abort: () => resetStream(stream),
    done: done.catch(() => undefined),
  });
  await done;
}

/**
 * The request body as a stream of its own: a consumer that fails destroys this one, not the
 * HTTP/2 stream, which stays open for the answer (the sender, no longer read, is held by flow
 * control). A stream reset before its end fails the body.
 */
export function requestBody(stream: OperationStream): Readable {
  const body = new PassThrough();
  const reset = () => {
    if (!stream.readableEnded) body.destroy(new Error('The stream was reset before the data ended'));
  };
  if (stream.closed || stream.destroyed) reset();
  else stream.once('close', reset);
  stream.pipe(body);
  return body;
}

/**
 * Whether the peer gave up on the stream (cancelled it, or the tunnel went away) rather than the
 * operation failing by itself: then nobody is left to answer, and it is no error of the runtime.
 */
export function watchAbort(stream: OperationStream): () => boolean {
  let aborted = false;
  stream.once('aborted', () => (aborted = true));
  return () => aborted;
}
