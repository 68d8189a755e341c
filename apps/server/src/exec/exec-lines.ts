/** Lines of an `application/x-ndjson` exec answer, in the order they are written. */
export type ExecLine =
  | { device?: string; stream: 'stdout' | 'stderr'; data: string }
  | { device?: string; exit_code: number; timed_out: boolean }
  | { device?: string; error: string; code: string };

export interface ExecLineSink {
  /** Resolves when the line may be followed by another (the reader keeps up, or left). */
  line(line: ExecLine): Promise<void>;
  /** True once the first line went out: later errors must be lines, not HTTP errors. */
  readonly started: boolean;
}
