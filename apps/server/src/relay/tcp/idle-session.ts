import type { Http2Session } from 'node:http2';

/** A session told to close gets this long to finish its GOAWAY before it is destroyed. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Closes a client's HTTP/2 session (GOAWAY) once it has had no open stream for `idleMs`: a
 * connection that only holds a socket costs the server and gives the client nothing, and the
 * CLI dials again on its next command. A session with a stream open (a shell, a forward) is
 * never idle, however quiet the stream.
 */
export function closeWhenIdle(session: Http2Session, idleMs: number): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      session.close();
      setTimeout(() => session.destroy(), CLOSE_GRACE_MS).unref();
    }, idleMs);
    timer.unref();
  };
  session.on('stream', (stream) => {
    open++;
    clearTimeout(timer);
    stream.once('close', () => {
      if (--open === 0 && !session.closed) arm();
    });
  });
  session.once('close', () => clearTimeout(timer));
  arm();
}
