import { PassThrough } from 'node:stream';
import { PrefixedLines } from './prefixed-lines';

describe('PrefixedLines', () => {
  async function printed(steps: (lines: PrefixedLines) => Promise<void>): Promise<string> {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await steps(new PrefixedLines(out));
    return text;
  }

  it.each([
    ['whole lines', ['a\nb\n'], 'd: a\nd: b\n'],
    ['a line split across chunks', ['a', 'b\nc', '\n'], 'd: ab\nd: c\n'],
    ['an empty line', ['\n'], 'd: \n'],
    ['a last line without newline, flushed', ['a\nb'], 'd: a\nd: b\n'],
  ])('prefixes %s', async (_name, chunks, expected) => {
    const text = await printed(async (lines) => {
      for (const chunk of chunks) await lines.add('d', chunk);
      await lines.flush('d');
    });
    expect(text).toBe(expected);
  });

  it('keeps the lines of two devices apart and escapes device names', async () => {
    const text = await printed(async (lines) => {
      await lines.add('one', 'x');
      await lines.add('t\u001bwo', 'y\n');
      await lines.add('one', 'z\n');
      await lines.note('one', 'exit code 3');
    });
    expect(text).toBe('t\\x1bwo: y\none: xz\none: exit code 3\n');
  });
});
