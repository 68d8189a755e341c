import { escapeControls, escapeJsonControls, hasControlChars, stripControlsDeep } from './control-chars';

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
    // Format characters (Cf): they draw nothing, so `dev\u200b2` passes for `dev2`.
    '\u00ad', // soft hyphen
    ...range(0x200b, 0x200d), // zero-width space, non-joiner, joiner
    ...range(0x2060, 0x2064), // word joiner, invisible operators
    '\ufeff', // byte order mark
    ...range(0xfff9, 0xfffb), // interlinear annotation
    '\u{e0001}', ...range(0xe0020, 0xe007f), // tag characters
    '\u{1d173}', // musical symbol begin beam
    // Fillers that draw an empty letter.
    '\u115f', '\u1160', '\u3164', '\uffa0',
  ];
  it.each(REFUSED.map((c) => [hex(c), c]))('refuses %s anywhere in the text', (_name, c) => {
    expect([c, `a${c}`, `${c}b`, `a${c}b`].map(hasControlChars)).toEqual([true, true, true, true]);
  });

  it.each(['', 'pi-kitchen-01', 'Debian GNU/Linux 12 (bookworm)', 'Küche-π-東京', '한글 이름', 'emoji 🚀', '\u00a0nbsp', 'x86_64 [arm64] {x} ~!@#$%^&*()'])(
    'keeps %j',
    (text) => expect(hasControlChars(text)).toBe(false),
  );
});

describe('escapeControls', () => {
  it.each([
    ['controls and separators', 'a\tb\nc\u0085d\u2028', 'a\\u0009b\\u000ac\\u0085d\\u2028'],
    ['a zero-width space and a filler', 'dev\u200b2\u3164', 'dev\\u200b2\\u3164'],
    ['a tag character, as its surrogate pair', 'x\u{e0041}', 'x\\udb40\\udc41'],
  ])('%s', (_name, text, expected) => {
    expect(escapeControls(text)).toBe(expected);
  });
});

describe('escapeJsonControls', () => {
  it.each([
    ['zero-width and tag characters', { name: 'dev\u200b2\u{e0001}' }, '{"name":"dev\\u200b2\\udb40\\udc01"}'],
    ['C1 CSI', { name: 'a\u009b2Jb' }, '{"name":"a\\u009b2Jb"}'],
    ['DEL and NEL', { name: '\u007f\u0085' }, '{"name":"\\u007f\\u0085"}'],
    ['bidi override and isolate', ['x\u202ey\u2066z'], '["x\\u202ey\\u2066z"]'],
    ['line separator', 'a\u2028b', '"a\\u2028b"'],
    ['C0, escaped by JSON.stringify already', 'a\u001b[31mb\n', '"a\\u001b[31mb\\n"'],
  ])('%s', (_name, value, expected) => {
    const json = escapeJsonControls(JSON.stringify(value));
    expect(json).toBe(expected);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('keeps the line breaks and indentation of pretty JSON', () => {
    const pretty = JSON.stringify({ a: ['\u202e'] }, null, 2);
    expect(escapeJsonControls(pretty)).toBe('{\n  "a": [\n    "\\u202e"\n  ]\n}');
  });
});

describe('stripControlsDeep', () => {
  it('removes the rule\'s characters from every string, keys included, keeping line feed and tab', () => {
    const value = { 'k\u202e': ['a\u009bb', { c: 'x\u0007\ty\r\nz\u2066' }], n: 1, b: true, z: null };
    expect(stripControlsDeep(value)).toEqual({ k: ['ab', { c: 'x\ty\nz' }], n: 1, b: true, z: null });
  });

  it('writes out the invisible characters instead, so that a name does not turn into the one it imitates', () => {
    expect(stripControlsDeep({ name: 'dev\u200b2', filler: '\u3164', tag: 'a\u{e0041}', bidi: 'x\u202ey' })).toEqual({ name: 'dev\\u200b2', filler: '\\u3164', tag: 'a\\udb40\\udc41', bidi: 'xy' });
  });
});
