import type { LogLevel } from '../config/runtime-variables';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };
/** The runtime never logs its key on purpose; this catches one slipping in through an error text. */
const API_KEY = /svc_[A-Za-z0-9_-]{20,}/g;

export type LogFields = Record<string, unknown>;

/** JSON lines on stderr (stdout is for what a person must read: the fingerprint to approve). */
export class RuntimeLogger {
  constructor(
    private readonly level: LogLevel,
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
    private readonly base: LogFields = {},
  ) {}

  child(fields: LogFields): RuntimeLogger {
    return new RuntimeLogger(this.level, this.write, { ...this.base, ...fields });
  }

  error(msg: string, fields?: LogFields): void {
    this.emit('error', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.emit('warn', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.emit('info', msg, fields);
  }
  debug(msg: string, fields?: LogFields): void {
    this.emit('debug', msg, fields);
  }

  private emit(level: LogLevel, msg: string, fields: LogFields = {}): void {
    if (RANK[level] > RANK[this.level]) return;
    const entry = { time: new Date().toISOString(), level, msg, ...this.base, ...fields };
    this.write(`${JSON.stringify(entry, errorsAsText).replace(API_KEY, '<redacted-api-key>')}\n`);
  }
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}
