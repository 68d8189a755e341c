import { ExecOutputCollector } from './exec-output';

describe('ExecOutputCollector', () => {
  it.each([
    ['under the cap', 10, ['abc', 'def'], 'abcdef'],
    ['exactly at the cap', 6, ['abc', 'def'], 'abcdef'],
    ['cut inside a chunk', 4, ['abc', 'def'], 'abcd\n[svc: output truncated, 2 more bytes not shown]\n'],
    ['cut at a chunk boundary', 3, ['abc', 'def', 'gh'], 'abc\n[svc: output truncated, 5 more bytes not shown]\n'],
    ['a zero cap', 0, ['abc'], '\n[svc: output truncated, 3 more bytes not shown]\n'],
  ])('keeps output %s', (_name, cap, chunks, expected) => {
    const collector = new ExecOutputCollector(cap);
    for (const chunk of chunks) collector.add(Buffer.from(chunk));
    expect(collector.text()).toBe(expected);
  });

  it('decodes UTF-8 split across chunks', () => {
    const collector = new ExecOutputCollector(100);
    const bytes = Buffer.from('✓');
    collector.add(bytes.subarray(0, 1));
    collector.add(bytes.subarray(1));
    expect(collector.text()).toBe('✓');
  });
});
