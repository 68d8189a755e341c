import { LoggerService } from '@nestjs/common';
import { requestContext } from './request-context';
import type { LogLevel } from './log-level';
import { prettyLine } from './pretty-line';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };

/**
 * Nest's start-up chatter (one line per module and per route, ~50 in all) would bury the start
 * banner (URL, certificate fingerprint, the runtimes' --ca hint); it is written at debug instead.
 */
const STARTUP_CONTEXTS: ReadonlySet<string> = new Set(['RouterExplorer', 'RoutesResolver', 'InstanceLoader', 'NestFactory', 'NestApplication']);

/** `json`: one JSON object per line (for collectors); `pretty`: a readable line, for a terminal. */
export type LogFormat = 'json' | 'pretty';

/** Anything that looks like a credential is replaced before a line is written. */
const SECRET_PATTERNS: [RegExp, string][] = [
  [/(bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1<redacted>'],
  [/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '<redacted-jwt>'],
  // Quotes may arrive escaped (`\"`) when a JSON text was logged as a string inside the JSON line.
  [/(api_key|apikey|admin[_-]?key|password|refresh_token|access_token)((?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)[^"'\s,&}\\]+/gi, '$1$2<redacted>'],
  [/svc_[A-Za-z0-9_-]{20,}/g, '<redacted-api-key>'],
];

export function redactSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), text);
}

/**
 * Structured JSON lines on stdout (one object per line) with the request id of the current
 * request when there is one; on a terminal the same entries as readable lines, as pino-pretty
 * users expect. `RUST_LOG` picks the level, keeping the spec's five names.
 */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly level: LogLevel,
    private readonly write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
    private readonly format: LogFormat = process.stdout.isTTY ? 'pretty' : 'json',
  ) {}

  enabled(level: LogLevel): boolean {
    return RANK[level] <= RANK[this.level];
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.emit('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('trace', message, rest);
  }

  /** Structured entry with extra fields, e.g. the per-request access line. */
  event(level: LogLevel, msg: string, fields: Record<string, unknown>): void {
    if (!this.enabled(level)) return;
    this.print({ time: new Date().toISOString(), level, msg, ...this.requestFields(), ...fields });
  }

  private emit(requested: LogLevel, message: unknown, rest: unknown[]): void {
    // Nest passes the context (class name) as the last string argument.
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const level = requested === 'info' && context !== undefined && STARTUP_CONTEXTS.has(context) ? 'debug' : requested;
    if (!this.enabled(level)) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, msg: stringify(message), ...this.requestFields() };
    if (context) entry.context = context;
    if (rest.length > 0) entry.detail = rest.map(stringify).join(' ');
    this.print(entry);
  }

  private requestFields(): Record<string, unknown> {
    const ctx = requestContext.getStore();
    return ctx ? { requestId: ctx.requestId } : {};
  }

  private print(entry: Record<string, unknown>): void {
    this.write(redactSecrets(this.format === 'pretty' ? prettyLine(entry) : JSON.stringify(entry)));
  }
}

function stringify(value: unknown): string {
  if (value instanceof Error) return value.stack ?? value.message;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
