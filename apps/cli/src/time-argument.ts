import { InvalidInputError } from '@svc/common/errors';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** journalctl's (systemd.time's) unit names. */
const UNITS: Record<string, number> = {
  s: SECOND, sec: SECOND, secs: SECOND, second: SECOND, seconds: SECOND,
  m: MINUTE, min: MINUTE, mins: MINUTE, minute: MINUTE, minutes: MINUTE,
  h: HOUR, hr: HOUR, hrs: HOUR, hour: HOUR, hours: HOUR,
  d: DAY, day: DAY, days: DAY,
  w: 7 * DAY, week: 7 * DAY, weeks: 7 * DAY,
};

/** Days from today of the words journalctl takes, each meaning that day's midnight here. */
const DAY_WORDS: Record<string, number> = { yesterday: -1, today: 0, tomorrow: 1 };

const RELATIVE = /^([+-])?\s*((?:\d+\s*[a-z]+\s*)+?)\s*(ago)?$/;
const SPAN = /(\d+)\s*([a-z]+)/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\S+)?$/i;

export const TIME_ARGUMENT_HELP = '2026-11-01, 2026-11-01T12:00:00Z, 30m, 1h, 2d, "1h 30m ago", today, yesterday or now';

/**
 * A time as `svc devices logs --since/--until` take it, as journalctl does: `now`; `today`,
 * `yesterday`, `tomorrow` (midnight on this machine); a span back from now (`30m`, `1h`, `2d`,
 * `-1h`, `1h 30m ago`; `+1h` ahead); or an ISO 8601 date or date-time, passed on as it is (the
 * server reads one without an offset as UTC and refuses an impossible one). Answers ISO 8601.
 */
export function parseTimeArgument(text: string, now: Date = new Date()): string {
  const input = text.trim().toLowerCase();
  if (input === 'now') return now.toISOString();
  if (input in DAY_WORDS) {
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + DAY_WORDS[input]);
    return midnight.toISOString();
  }
  if (ISO_DATE.test(text.trim())) return text.trim().replace(' ', 'T');
  const relative = RELATIVE.exec(input);
  if (relative && !(relative[1] === '+' && relative[3])) {
    let span = 0;
    for (const [, count, unit] of relative[2].matchAll(SPAN)) {
      if (!(unit in UNITS)) throw notATime(text);
      span += Number(count) * UNITS[unit];
    }
    return new Date(now.getTime() + (relative[1] === '+' ? span : -span)).toISOString();
  }
  throw notATime(text);
}

function notATime(text: string): InvalidInputError {
  return new InvalidInputError(`${JSON.stringify(text)} is not a time: use ${TIME_ARGUMENT_HELP}`);
}
