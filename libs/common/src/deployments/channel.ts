/**
 * The deployment channel's framing (docs/protocol.md, "Deployments"): one tunnel stream per
 * session, `POST /v1/deployments`, NDJSON both ways. Node builtins only: the server and the
 * runtime both use it.
 */
import { StringDecoder } from 'node:string_decoder';
import type { RuntimeChannelMessage, ServerChannelMessage } from './model';
import { DEPLOY_LIMITS } from './schema';

export const DEPLOYMENT_CHANNEL_LIMITS = {
  /**
   * Longest line the server sends (a desired state): the server keeps a stored deployment below
   * the largest deploy request, so a runtime that accepts this much reads every desired state.
   */
  maxDesiredLineBytes: DEPLOY_LIMITS.maxRequestBytes,
  /** Longest report line the server reads; a longer one is dropped (the channel stays). */
  maxReportLineBytes: 1024 * 1024,
} as const;

/** A runtime reports on its deployments this often even when nothing changed (and at once on a change). */
export const DEPLOYMENT_REPORT_INTERVAL_MS = 60_000;
/**
 * A status is stale once the device has not reported on its active deployment for this long
 * while connected: three report intervals, so one late or lost report is not enough.
 */
export const STALE_REPORT_MS = 3 * DEPLOYMENT_REPORT_INTERVAL_MS;

export function encodeChannelLine(message: ServerChannelMessage | RuntimeChannelMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * Splits a byte stream into lines of at most `maxLineBytes` (UTF-8, without the newline). A longer
 * line is skipped up to its newline and reported through `onOversized`, so one bad line never ends
 * the stream. Empty lines (and a trailing `\r`) are ignored.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private pendingBytes = 0;
  private skipping = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (bytes: number) => void = () => undefined,
  ) {}

  push(chunk: Buffer): void {
    let text = this.decoder.write(chunk);
    for (let cut = text.indexOf('\n'); cut >= 0; cut = text.indexOf('\n')) {
      this.take(text.slice(0, cut));
      this.finishLine();
      text = text.slice(cut + 1);
    }
    this.take(text);
  }

  /** The stream ended: a last line without its newline counts as a line. */
  end(): void {
    this.take(this.decoder.end());
    if (this.pending.length > 0 || this.skipping) this.finishLine();
  }

  private take(part: string): void {
    if (part.length === 0) return;
    const bytes = Buffer.byteLength(part);
    this.pendingBytes += bytes;
    if (this.skipping) return;
    if (this.pendingBytes > this.maxLineBytes) {
      this.skipping = true;
      this.pending = '';
      return;
    }
    this.pending += part;
  }

  private finishLine(): void {
    if (this.skipping) this.onOversized(this.pendingBytes);
    else {
      const line = this.pending.endsWith('\r') ? this.pending.slice(0, -1) : this.pending;
      if (line.trim().length > 0) this.onLine(line);
    }
    this.pending = '';
    this.pendingBytes = 0;
    this.skipping = false;
  }
}
