import { prefixRange } from './devices.repository';

describe('prefixRange', () => {
  it.each([
    ['ascii', 'edge-', { gte: 'edge-', lt: 'edge.' }],
    ['one character', 'a', { gte: 'a', lt: 'b' }],
    ['a character below the surrogates', 'x\ud7ff', { gte: 'x\ud7ff', lt: 'x\ue000' }],
    ['an astral character', 'x😀', { gte: 'x😀', lt: 'x😁' }],
    ['the last code point carries into the one before', 'ab\u{10ffff}', { gte: 'ab\u{10ffff}', lt: 'ac' }],
    ['only the last code point: no upper bound', '\u{10ffff}', { gte: '\u{10ffff}' }],
  ])('%s', (_label, prefix, range) => {
    expect(prefixRange(prefix)).toEqual(range);
  });

  it('bounds exactly the strings with the prefix, in code point order', () => {
    const { gte, lt } = prefixRange('ab') as { gte: string; lt: string };
    const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const inside = (s: string) => byCodePoint(s, gte) >= 0 && byCodePoint(s, lt) < 0;
    expect(['ab', 'abc', 'ab\u{10ffff}', 'ab😀'].every(inside)).toBe(true);
    expect(['aa', 'a', 'ac', 'b', 'Ab'].some(inside)).toBe(false);
  });
});
