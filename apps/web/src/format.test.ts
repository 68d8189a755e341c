import { describe, expect, it } from 'vitest';
import { formatLastSeen, formatUptime, splitCommand } from './format';

describe('format', () => {
  it.each([
    [null, '—'],
    [0, '0s'],
    [59.9, '59s'],
    [61, '1m 1s'],
    [3600, '1h'],
    [3661, '1h 1m'],
    [90061, '1d 1h'],
    [86400 * 3 + 59, '3d 59s'],
  ])('uptime %s → %s', (seconds, shown) => expect(formatUptime(seconds)).toBe(shown));

  const now = Date.parse('2026-01-02T12:00:00Z');
  it.each([
    [null, 'never'],
    ['2026-01-02T11:59:55Z', 'just now'],
    ['2026-01-02T11:59:30Z', '30 s ago'],
    ['2026-01-02T11:55:00Z', '5 min ago'],
    ['2026-01-02T09:00:00Z', '3 h ago'],
    ['2025-12-30T08:05:00Z', '2025-12-30 08:05'],
    ['2026-01-02T12:00:30Z', 'just now'],
    ['not a date', 'not a date'],
  ])('last seen %s → %s', (iso, shown) => expect(formatLastSeen(iso, now)).toBe(shown));

  it.each([
    ['ls -la /tmp', ['ls', '-la', '/tmp']],
    ['  echo   "a b"  ', ['echo', 'a b']],
    ["sh -c 'echo $HOME'", ['sh', '-c', 'echo $HOME']],
    ['echo "say \\"hi\\""', ['echo', 'say "hi"']],
    ['touch a\\ b', ['touch', 'a b']],
    ['printf ""', ['printf', '']],
    ['', []],
  ])('splits %j', (line, args) => expect(splitCommand(line)).toEqual(args));

  it('refuses an unclosed quote', () => expect(() => splitCommand('echo "open')).toThrow('unclosed " quote'));
});
