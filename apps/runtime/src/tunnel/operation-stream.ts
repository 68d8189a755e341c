import { constants as http2Constants, OutgoingHttpHeaders } from 'node:http2';
import type { Duplex } from 'node:stream';
import { QuinnOperationStream, QuinnStream } from '@svc/common';

/**
 * What an operation handler holds: the request body to read, the answer to write, and the few
 * HTTP/2-shaped calls the handlers make. Node's ServerHttp2Stream (the TLS/TCP carrier's reverse
 * HTTP/2) satisfies it as it is; QuicOperationStream below is the same over one QUIC stream.
 * Events the handlers listen to besides a Duplex's: `'aborted'` (the server cancelled),
 * `'trailers'` (the request's trailers, before `'end'`), `'wantTrailers'` (send them now).
 */
export interface OperationStream extends Duplex {
  /** Answers with `:status` and header fields; `waitForTrailers` ends the answer with trailers. */
  respond(headers: OutgoingHttpHeaders, options?: { waitForTrailers?: boolean }): void;
  readonly headersSent: boolean;
  sendTrailers(headers: OutgoingHttpHeaders): void;
  /** NGHTTP2_NO_ERROR (the default): stop reading once the answer is out; any other code cancels. */
  close(code?: number): void;
}

/** One QUIC stream the server opened for an operation, seen as an OperationStream. */
export class QuicOperationStream extends QuinnOperationStream implements OperationStream {
  constructor(stream: QuinnStream, remoteAddress: string) {
    super(stream, remoteAddress, 'acceptor');
  }

  respond(headers: OutgoingHttpHeaders, options: { waitForTrailers?: boolean } = {}): void {
    this.sendHead(headers, options.waitForTrailers === true);
  }

  override sendTrailers(headers: OutgoingHttpHeaders): void {
    super.sendTrailers(stringFields(headers));
  }

  close(code: number = http2Constants.NGHTTP2_NO_ERROR): void {
    if (code === http2Constants.NGHTTP2_NO_ERROR) this.stopReading();
    else this.reset();
  }
}

function stringFields(headers: OutgoingHttpHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) fields[name] = String(value);
  return fields;
}
