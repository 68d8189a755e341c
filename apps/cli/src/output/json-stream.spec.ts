import { PassThrough } from 'node:stream';
import { JsonStreamWriter } from './json-stream';

describe('JsonStreamWriter', () => {
  async function written(steps: (json: JsonStreamWriter) => Promise<void>): Promise<string> {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await steps(new JsonStreamWriter(out));
    return text;
  }

  it('writes a string from pieces that parses back to the same text, UTF-8 split across pieces', async () => {
    const source = 'quote " backslash \\ newline \n tab \t nul \u0000 ✓ end';
    const bytes = Buffer.from(source);
    const text = await written(async (json) => {
      await json.raw('{"output":"');
      for (let i = 0; i < bytes.length; i += 3) await json.stringBytes(bytes.subarray(i, i + 3));
      await json.endString();
      await json.raw('"}');
    });
    expect(JSON.parse(text)).toEqual({ output: source });
  });

  it('escapes C1 controls and bidirectional overrides as well', async () => {
    const text = await written(async (json) => {
      await json.raw('"');
      await json.stringText('a\u009bb\u202ec');
      await json.raw('"');
      await json.value({ d: '\u202e' });
    });
    expect(text).toBe('"a\\u009bb\\u202ec"{"d":"\\u202e"}');
  });
});
