/** What a job's log keeps in memory: whichever bound is reached first drops the oldest lines. */
export const JOB_LOG_LIMITS = { lines: 10_000, bytes: 1024 * 1024 } as const;
/** A line longer than this is cut (a binary blob on stdout must not become one huge "line"). */
const MAX_LINE_CHARS = 16 * 1024;

export type LogListener = (line: string) => void;

/**
 * One job's output as lines, bounded (a ring: the oldest lines go first). Several sources write
 * into it at once (stdout and stderr of every step, the `observe.logs.follow` command); each
 * keeps its own unfinished last line, so their output interleaves by whole lines.
 */
export class JobLog {
  private readonly lines: string[] = [];
  private head = 0;
  private bytes = 0;
  private readonly listeners = new Set<LogListener>();

  constructor(private readonly limits: { lines: number; bytes: number } = JOB_LOG_LIMITS) {}

  get size(): number {
    return this.lines.length - this.head;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** A writer for one source; `end()` flushes its unfinished line. */
  source(): { write(chunk: Buffer | string): void; end(): void } {
    let partial = '';
    return {
      write: (chunk) => {
        const text = partial + chunk.toString();
        const parts = text.split('\n');
        partial = parts.pop() ?? '';
        while (partial.length > MAX_LINE_CHARS) {
          parts.push(partial.slice(0, MAX_LINE_CHARS));
          partial = partial.slice(MAX_LINE_CHARS);
        }
        for (const line of parts) this.appendInPieces(line.replace(/\r$/, ''));
      },
      end: () => {
        if (partial !== '') this.append(partial);
        partial = '';
      },
    };
  }

  /** A line from the runtime itself (`[svc] step "build" failed …`), told apart from the job's output. */
  note(text: string): void {
    this.append(`[svc] ${text}`);
  }

  append(line: string): void {
    const kept = line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
    this.lines.push(kept);
    this.bytes += Buffer.byteLength(kept) + 1;
    while (this.size > this.limits.lines || (this.bytes > this.limits.bytes && this.size > 1)) {
      this.bytes -= Buffer.byteLength(this.lines[this.head]) + 1;
      this.head++;
    }
    // Compact now and then, so the array does not grow with everything ever dropped.
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines.splice(0, this.head);
      this.head = 0;
    }
    for (const listener of this.listeners) listener(kept);
  }

  /** A line longer than the limit becomes several. */
  private appendInPieces(line: string): void {
    for (let start = 0; start === 0 || start < line.length; start += MAX_LINE_CHARS) this.append(line.slice(start, start + MAX_LINE_CHARS));
  }

  /** The last `count` lines (all of them for a count beyond the size). */
  tail(count: number): string[] {
    if (count <= 0) return [];
    return this.lines.slice(Math.max(this.head, this.lines.length - count));
  }

  /** Every line appended from now on; returns the unsubscribe. */
  follow(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
