import { encodeChannelLine, LineSplitter } from './channel';

function split(chunks: (string | Buffer)[], max = 16): { lines: string[]; oversized: number[] } {
  const lines: string[] = [];
  const oversized: number[] = [];
  const splitter = new LineSplitter(max, (line) => lines.push(line), (bytes) => oversized.push(bytes));
  for (const chunk of chunks) splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  splitter.end();
  return { lines, oversized };
}

describe('LineSplitter', () => {
  it.each<[string, (string | Buffer)[], string[], number[]]>([
    ['one line per newline', ['a\nb\n'], ['a', 'b'], []],
    ['a line split across chunks', ['ab', 'c\nd', 'e\n'], ['abc', 'de'], []],
    ['a last line without newline', ['a\nlast'], ['a', 'last'], []],
    ['CRLF and empty lines', ['a\r\n\r\n\n  \nb\n'], ['a', 'b'], []],
    ['a line of exactly the limit', ['x'.repeat(16) + '\n'], ['x'.repeat(16)], []],
    ['an oversized line skipped up to its newline, the next kept', ['x'.repeat(10), 'x'.repeat(10), 'tail\nok\n'], ['ok'], [24]],
    ['an oversized last line without newline', ['ok\n', 'y'.repeat(40)], ['ok'], [40]],
  ])('%s', (_label, chunks, lines, oversized) => {
    expect(split(chunks)).toEqual({ lines, oversized });
  });

  it('counts bytes, not characters, and keeps a character split across chunks whole', () => {
    const euro = Buffer.from('€€\n');
    expect(split([euro.subarray(0, 2), euro.subarray(2)], 6)).toEqual({ lines: ['€€'], oversized: [] });
    expect(split(['€€€'], 6)).toEqual({ lines: [], oversized: [9] });
  });

  it('encodes one message per line', () => {
    expect(encodeChannelLine({ type: 'desired', desired: { revision: 3, deployment: null } })).toBe('{"type":"desired","desired":{"revision":3,"deployment":null}}\n');
  });
});
