import type { Socket } from 'node:net';
import { Duplex, finished, FinishedOptions, Readable, Writable } from 'node:stream';

/** One side of a byte-stream forward and how to cut it short (RST, not a clean end). */
export interface SpliceEnd {
  readonly stream: Duplex;
  abort(): void;
}

export interface SpliceOutcome {
  /** True when either side ended abnormally (reset, error, lost peer) and the other was cut too. */
  aborted: boolean;
  error?: Error;
}

/** An HTTP/2 stream (or a QUIC operation stream): aborting sends RST_STREAM (RESET_STREAM + STOP_SENDING). */
export function http2End(stream: Duplex): SpliceEnd {
  return {
    stream,
    abort: () => resetStream(stream),
  };
}

/**
 * Cuts an HTTP/2 stream short with RST_STREAM alone. Not `close(NGHTTP2_CANCEL)`: node first
 * ends the writable side (END_STREAM) and only then resets, so the peer reads a clean end of data
 * — a forward would pass it on as a FIN, an upload would look complete. `destroy(error)` resets
 * at once (code INTERNAL_ERROR); peers treat any reset code other than NO_ERROR as an abort.
 */
export function resetStream(stream: Duplex): void {
  if (stream.destroyed) return;
  stream.on('error', () => undefined);
  try {
    stream.destroy(new Error('stream aborted'));
  } catch (error) {
    // HTTP/2 over a JS stream (the server's frame guard) whose socket is already shutting down:
    // Node asserts on the RST_STREAM's write (JSStreamSocket). The connection is going away, and
    // with it the stream; nothing is left to tell the peer.
    if ((error as { code?: unknown }).code !== 'ERR_INTERNAL_ASSERTION') throw error;
  }
}

/** A TCP or unix socket: aborting resets a TCP connection (RST) and destroys a unix one. */
export function socketEnd(socket: Socket): SpliceEnd {
  return {
    stream: socket,
    abort: () => {
      if (socket.destroyed) return;
      try {
        socket.resetAndDestroy();
      } catch {
        socket.destroy(); // not TCP (ERR_INVALID_HANDLE_TYPE): a unix socket has no RST
      }
    },
  };
}

/**
 * Relays two byte streams into each other until both directions are done — the one rule of every
 * forward (runtime ↔ target, server ↔ client, CLI ↔ local connection):
 * - backpressure: a side is not read while the other holds SPLICE_BUFFER_BYTES unwritten, so no
 *   hop buffers more than that per direction (HTTP/2 flow control does the rest; see `relay`);
 * - half-close: the end of one side's data ends the other's writable side (FIN ↔ END_STREAM),
 *   and the opposite direction goes on;
 * - abort: a side that closes before both its directions finished (reset, error, lost tunnel)
 *   aborts the other one.
 * - batching: what one side delivers within one event-loop turn is written to the other as one
 *   writev (see `coalesceWrites`).
 * Sockets must be created with `allowHalfOpen: true`, or the half-close is lost.
 */
export function splice(a: SpliceEnd, b: SpliceEnd): Promise<SpliceOutcome> {
  return new Promise((resolve) => {
    let aborted = false;
    let error: Error | undefined;
    let open = 2;
    const watch = (self: SpliceEnd, other: SpliceEnd) => {
      // `finished` also reports a side that was already closed when the splice began.
      settled(self.stream, {}, (err) => {
        if (err) {
          aborted = true;
          if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') error ??= err;
          other.abort();
        }
        if (--open === 0) resolve(error === undefined ? { aborted } : { aborted, error });
      });
    };
    watch(a, b);
    watch(b, a);
    coalesceWrites(a.stream, b.stream);
    coalesceWrites(b.stream, a.stream);
    relay(a.stream, b.stream);
    relay(b.stream, a.stream);
  });
}

/**
 * `stream.finished()`, except for an HTTP/2 stream already closed at the HTTP/2 level (both
 * END_STREAMs, or a RST_STREAM NO_ERROR, received) whose answer is still buffered to be read:
 * `finished()` takes its `closed` for the Node stream having closed and reports a premature close
 * at once, losing an answer that arrived whole in one read with the response headers (a splice
 * aborted its other side; exec read a device's ERROR frame as "device offline"). Such a stream is
 * judged once it has closed, i.e. after its buffered answer was read to its end.
 */
export function settled(stream: Duplex, options: FinishedOptions, callback: (err?: NodeJS.ErrnoException | null) => void): void {
  if ((stream as { closed?: unknown }).closed === true && !stream.destroyed) stream.once('close', () => finished(stream, options, callback));
  else finished(stream, options, callback);
}

/**
 * How much one direction of a splice may hold in the writable side's buffer before the readable
 * side is paused. `pipe` pauses as soon as `write()` returns false, i.e. at the writable's
 * high-water mark (16 KiB for sockets and HTTP/2 streams): an HTTP/2 stream completes a write
 * only once nghttp2 sent it, a turn of the event loop later, so a piped relay moved one 16 KiB
 * DATA frame per turn — one TLS write, one syscall and a read stop/start each (measured: 4,445 of
 * 4,510 writes of the server's tunnel socket were exactly one frame). Letting a turn's reads
 * through lets them leave as one batch.
 */
export const SPLICE_BUFFER_BYTES = 1024 * 1024;

/**
 * `from.pipe(to)` with a deeper buffer: pauses `from` once `to` holds SPLICE_BUFFER_BYTES (not at
 * its high-water mark) and resumes it on 'drain'; ends `to` when `from` ends unless `end` is
 * false. Backpressure still reaches the peer: a paused HTTP/2 stream stops consuming, so no
 * WINDOW_UPDATE goes out. Returns `unpipe`: stops relaying and pauses `from`, as `unpipe` does.
 */
export function relay(from: Readable, to: Writable, options: { end?: boolean } = {}): () => void {
  let waiting = false;
  const resume = () => {
    waiting = false;
    from.resume();
  };
  const onData = (chunk: Buffer) => {
    if (to.destroyed || to.writableEnded) return;
    to.write(chunk);
    if (!waiting && to.writableNeedDrain && to.writableLength >= SPLICE_BUFFER_BYTES) {
      waiting = true;
      from.pause();
      to.once('drain', resume);
    }
  };
  const onEnd = () => {
    if (!to.destroyed && !to.writableEnded) to.end();
  };
  from.on('data', onData);
  if (options.end !== false) from.once('end', onEnd);
  from.resume();
  return () => {
    from.off('data', onData);
    from.off('end', onEnd);
    to.off('drain', resume);
    from.pause();
  };
}

/**
 * Corks `to` from the first chunk `from` delivers in an event-loop turn until the turn's I/O is
 * done (setImmediate), so that the chunks of that turn leave as one writev (HTTP/2: one batch of
 * DATA frames, one TLS write). A TLS read hands HTTP/2 one 16 KiB record at a time, and a DATA
 * frame that straddles records arrives as a record plus a tail of a few bytes: written one by
 * one, each became its own HTTP/2 frame, TLS record and syscall at the next hop (measured: up to
 * half of a relay's chunks were ≤ 64 bytes). Must be attached before `pipe` (or `relay`), so
 * that the cork precedes the chunk's write. The cork is released as soon as `from` ends, before
 * whoever ends `to`.
 * Never for an HTTP/1 response (`OutgoingMessage`): on Node 24 a corked one stops emitting 'drain'
 * to a slow reader, and `end()` writes the terminating chunk and trailers before what the cork held
 * (a 3 MiB download lost its last 48 KiB; a 101 MiB one stalled). file-relay.ts pipes it plainly.
 */
export function coalesceWrites(from: Readable, to: Writable): void {
  let corked = false;
  const release = () => {
    if (!corked) return;
    corked = false;
    to.uncork();
  };
  from.on('data', () => {
    if (corked || to.writableCorked > 0 || to.writableEnded) return;
    corked = true;
    to.cork();
    setImmediate(release);
  });
  from.once('end', release);
}
