import { parseTimeArgument } from './time-argument';

describe('parseTimeArgument', () => {
  const now = new Date('2026-11-24T10:30:00.000Z');
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const midnight = (days: number) => new Date(now.getFullYear(), now.getMonth(), now.getDate() + days).toISOString();

  it.each([
    ['now', now.toISOString()],
    ['30m', ago(30 * 60_000)],
    ['1h', ago(3_600_000)],
    ['-1h', ago(3_600_000)],
    ['2d', ago(2 * 86_400_000)],
    ['1w', ago(7 * 86_400_000)],
    ['90s', ago(90_000)],
    ['1h30m', ago(90 * 60_000)],
    ['1h 30m ago', ago(90 * 60_000)],
    ['2 hours ago', ago(2 * 3_600_000)],
    ['3 days', ago(3 * 86_400_000)],
    ['+1h', new Date(now.getTime() + 3_600_000).toISOString()],
    ['today', midnight(0)],
    ['Yesterday', midnight(-1)],
    ['tomorrow', midnight(1)],
    ['2026-11-01', '2026-11-01'],
    ['2026-11-01T12:00:00Z', '2026-11-01T12:00:00Z'],
    ['2026-11-01 12:00', '2026-11-01T12:00'],
  ])('%s', (text, expected) => expect(parseTimeArgument(text, now)).toBe(expected));

  it.each(['', 'soon', '5', '1x', '1h fortnights', '+1h ago', 'ago', '1h ago ago'])('refuses %j, naming the forms it takes', (text) => {
    expect(() => parseTimeArgument(text, now)).toThrow(/is not a time: use 2026-11-01, .* today, yesterday or now$/);
  });
});
