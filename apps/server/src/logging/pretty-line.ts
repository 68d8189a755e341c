/**
 * One log entry as a terminal line: `12:03:04.567 INFO  [Relay] message key=value …`. Fields
 * other than time, level, msg and context follow as key=value (strings with spaces quoted);
 * a multi-line detail (a stack) follows on its own lines.
 */
export function prettyLine(entry: Record<string, unknown>): string {
  const { time, level, msg, context, detail, ...fields } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const head = `${clock} ${String(level).toUpperCase().padEnd(5)} ${context ? `[${String(context)}] ` : ''}${String(msg)}`;
  const pairs = Object.entries(fields).map(([key, value]) => `${key}=${formatValue(value)}`);
  const line = pairs.length > 0 ? `${head} ${pairs.join(' ')}` : head;
  return detail === undefined ? line : `${line}\n  ${String(detail).split('\n').join('\n  ')}`;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}
