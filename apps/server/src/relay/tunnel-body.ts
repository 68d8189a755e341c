import type { Duplex } from 'node:stream';

/**
 * Calls `onCut` once if a tunnel stream's body fails, or closes before its end was read (the
 * device went away mid-answer). A body that ended, however its stream closed afterwards, is whole.
 *
 * Not `stream.finished()`: on Node 24 it takes an HTTP/2 stream's `closed` (closed at the HTTP/2
 * level) for the Node stream having closed, and reports a premature close at once when attached
 * to a stream whose answer is still buffered to be read. A device's HTTP/2 server may end a
 * stream whose request it never read with RST_STREAM(NO_ERROR) right after its complete answer
 * (Node's does, RFC 9113 §8.1); when that arrives with the response headers, the device's answer
 * (e.g. its ERROR frame) was lost and read as "device offline".
 */
export function onBodyCutShort(body: Duplex, onCut: (error: Error) => void): void {
  let called = false;
  const cut = (error: Error | null | undefined) => {
    if (called || body.readableEnded) return;
    called = true;
    onCut(error ?? new Error('The tunnel stream closed before its end'));
  };
  body.on('error', cut);
  body.once('close', () => cut(body.errored));
  // Already gone before we looked (its 'close' may have been emitted): judge it now.
  if (body.destroyed) queueMicrotask(() => cut(body.errored));
}
