import { hasControlChars } from './control-chars';

describe('hasControlChars', () => {
  const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));

  const REFUSED = [
    ...range(0x00, 0x1f), // C0, tab and line breaks included
    '\u007f',
    ...range(0x80, 0x9f), // C1, CSI (U+009B) included
    '\u061c', '\u200e', '\u200f', // bidi marks
    ...range(0x202a, 0x202e), // embeddings and overrides
    ...range(0x2066, 0x2069), // isolates
    '\u2028', '\u2029',
  ];
  it.each(REFUSED.map((c) => [hex(c), c]))('refuses %s anywhere in the text', (_name, c) => {
    expect([c, `a${c}`, `${c}b`, `a${c}b`].map(hasControlChars)).toEqual([true, true, true, true]);
  });

  it.each(['', 'pi-kitchen-01', 'Debian GNU/Linux 12 (bookworm)', 'Küche-π-東京', 'emoji 🚀', '\u00a0nbsp', '\u200bzero-width', '\u00ad', 'x86_64 [arm64] {x} ~!@#$%^&*()'])(
    'keeps %j',
    (text) => expect(hasControlChars(text)).toBe(false),
  );
});
