import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import { escapeControls } from '@svc/common/control-chars';

/**
 * JSON written piece by piece, so that a string value of any size (a command's whole output)
 * goes out as it arrives and is never one JavaScript string: the text is what JSON.stringify
 * would give, compact, with C1 controls and bidirectional overrides escaped as well.
 */
export class JsonStreamWriter {
  private decoder = new StringDecoder('utf8');

  constructor(private readonly out: Writable) {}

  /** Structural JSON (`{"output":"`, `,"exit_code":0}`), written as given. */
  raw(text: string): Promise<void> {
    return write(this.out, text);
  }

  /** A complete value, e.g. a batch item that is an error. */
  value(value: unknown): Promise<void> {
    return write(this.out, escapeControls(JSON.stringify(value)));
  }

  /** Bytes inside an open string: UTF-8 split across calls is joined, as in the output itself. */
  stringBytes(data: Buffer): Promise<void> {
    return this.stringText(this.decoder.write(data));
  }

  /** Ends an open string (what is left of a split character), without the closing quote. */
  endString(): Promise<void> {
    const rest = this.decoder.end();
    this.decoder = new StringDecoder('utf8');
    return this.stringText(rest);
  }

  /** Text inside an open string. */
  stringText(text: string): Promise<void> {
    return text.length === 0 ? Promise.resolve() : write(this.out, escapeControls(JSON.stringify(text).slice(1, -1)));
  }
}

/** Writes and, when the stream is full, waits until it drains (or closes). */
export function write(out: Writable, data: string | Buffer): Promise<void> {
  if (out.write(data)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    out.on('drain', done).on('close', done).on('error', done);
  });
}
