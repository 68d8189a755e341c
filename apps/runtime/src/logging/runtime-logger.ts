import type { LogLevel } from '../config/runtime-variables';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };
/** The runtime never logs its key on purpose; this catches one slipping in through an error text. */
const API_KEY = /svc_[A-Za-z0-9_-]{20,}/g;

export type LogFields = Record<string, unknown>;

/**
 * `json`: one JSON object per line, for journald and log collectors (stderr is not a terminal).
 * `pretty`: `12:04:05.123 INFO  tunnel up carrier=quic`, for a person at a terminal, as
 * pino-pretty prints; `color` adds ANSI colours to the level.
 */
export interface LogFormat {
  style: 'json' | 'pretty';
  color?: boolean;
}

const LEVEL_COLORS: Record<LogLevel, string> = { error: '\x1b[31m', warn: '\x1b[33m', info: '\x1b[32m', debug: '\x1b[34m', trace: '\x1b[90m' };

/** Logs go to stderr (stdout is for what a person must read: the fingerprint to approve). */
export class RuntimeLogger {
  constructor(
    private readonly level: LogLevel,
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
    private readonly base: LogFields = {},
    private readonly format: LogFormat = { style: 'json' },
  ) {}

  child(fields: LogFields): RuntimeLogger {
    return new RuntimeLogger(this.level, this.write, { ...this.base, ...fields }, this.format);
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
    const time = new Date();
    const line = this.format.style === 'pretty' ? prettyLine(time, level, msg, { ...this.base, ...fields }, this.format.color === true) : JSON.stringify({ time: time.toISOString(), level, msg, ...this.base, ...fields }, errorsAsText);
    this.write(`${line.replace(API_KEY, '<redacted-api-key>')}\n`);
  }
}

function prettyLine(time: Date, level: LogLevel, msg: string, fields: LogFields, color: boolean): string {
  const clock = time.toTimeString().slice(0, 8) + `.${String(time.getMilliseconds()).padStart(3, '0')}`;
  const label = level.toUpperCase().padEnd(5);
  const pairs = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  return [clock, color ? `${LEVEL_COLORS[level]}${label}\x1b[0m` : label, safeText(msg), ...pairs].join(' ');
}

/** Plain words stay bare; anything with spaces, quotes or control characters is JSON-quoted, so one entry stays one line. */
function fieldText(value: unknown): string {
  const text = typeof value === 'string' ? value : value instanceof Error ? value.message : (JSON.stringify(value, errorsAsText) ?? String(value));
  return /^[^\s"\\\x00-\x1f\x7f-\x9f]*$/.test(text) && text !== '' ? text : JSON.stringify(text);
}

function safeText(text: string): string {
  return /[\x00-\x1f\x7f-\x9f]/.test(text) ? JSON.stringify(text) : text;
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}
