import { formatBytes, formatDuration } from './human-units';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [8 * 1024 * 1024, '8.0 MiB'],
    [3 * 1024 ** 3 + 1, '3.0 GiB'],
    [2048 * 1024 ** 4, '2048.0 TiB'],
  ])('%d bytes read %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [0.2, '1s'],
    [59, '59s'],
    [60, '1m00s'],
    [184, '3m04s'],
    [3600, '1h00m'],
    [3720, '1h02m'],
  ])('%d seconds read %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
