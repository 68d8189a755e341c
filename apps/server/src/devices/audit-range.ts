import { InvalidInputError, LIMITS } from '@svc/common';

export interface AuditLogQuery {
  since?: string;
  until?: string;
  max?: number;
}

export interface AuditRange {
  since?: Date;
  until?: Date;
  max: number;
}

/**
 * A calendar date, or a date and a time to the minute, second or fraction of a second, with an
 * optional `Z` or ±hh:mm / ±hhmm offset. Each field is then checked against the calendar: `Date`
 * would roll `2024-02-30` over into March and accept hour 24.
 */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The range of a device_audit_logs query, checked once for the whole request: a malformed range
 * is a 400, not an error per device. `max` (a whole number within bounds) was checked on the route
 * against the catalog; what a schema cannot say is checked here: real dates, since before until.
 */
export function parseAuditRange(query: AuditLogQuery): AuditRange {
  const since = parseInstant('since', query.since);
  const until = parseInstant('until', query.until);
  if (since && until && since >= until) throw new InvalidInputError('since must be before until');
  return { since, until, max: query.max ?? LIMITS.auditLogsDefaultMax };
}

/**
 * A time without an offset is UTC: the server's own time zone means nothing to the caller.
 * Fractions beyond the millisecond are dropped, as stored timestamps have none.
 */
function parseInstant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const match = INSTANT.exec(value);
  const date = match && toDate(match);
  if (!date) throw new InvalidInputError(`${name} must be an ISO 8601 timestamp (e.g. 2024-05-01 or 2024-05-01T12:00:00Z)`);
  return date;
}

function toDate(match: RegExpExecArray): Date | undefined {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const [fraction = '', , sign, offsetHours, offsetMinutes] = match.slice(7);
  const offset = Number(offsetHours ?? 0) * 60 + Number(offsetMinutes ?? 0);
  const valid =
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) &&
    hour <= 23 && minute <= 59 && second <= 59 && Number(offsetHours ?? 0) <= 23 && Number(offsetMinutes ?? 0) <= 59;
  if (!valid) return undefined;
  // setUTCFullYear, not Date.UTC, which reads the years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  return new Date(date.getTime() - (sign === '-' ? -offset : offset) * 60_000);
}

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}
