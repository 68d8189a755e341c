import { renderTable } from './table';
import { escapeTerminal, stripAnsi } from './terminal-text';

describe('escapeTerminal', () => {
  it.each([
    ['plain-name_1.2', 'plain-name_1.2'],
    ['evil\u001b[31mred', 'evil\\x1b[31mred'],
    ['bell\u0007', 'bell\\x07'],
    ['two\nlines\r', 'two\\nlines\\r'],
    ['tab\there', 'tab\\there'],
    ['c1\u009bcsi', 'c1\\x9bcsi'],
    ['del\u007f', 'del\\x7f'],
    ['rtl\u202eexe.txt', 'rtl\\u{202e}exe.txt'],
    ['sep\u2028x', 'sep\\u{2028}x'],
    ['ünïcödé ✓', 'ünïcödé ✓'],
  ])('%j → %j', (input, expected) => {
    expect(escapeTerminal(input)).toBe(expected);
  });
});

describe('stripAnsi', () => {
  it.each([
    ['\u001b[31mred\u001b[0m', 'red'],
    ['\u001b[1;32;40mbold\u001b[m', 'bold'],
    ['\u001b]0;title\u0007text', 'text'],
    ['\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\', 'link'],
    ['\u001b[2J\u001b[Hclear', 'clear'],
    ['\u001b[?25lhidden', 'hidden'],
    ['plain\ttext\n', 'plain\ttext\n'],
  ])('%j → %j', (input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });
});

describe('renderTable', () => {
  it('aligns columns, upper-cases headers, escapes cells and shows missing values as -', () => {
    const rows = [
      { id: 'a', name: 'one\u001b[2J', n: 1 },
      { id: 'longer-id', name: undefined, n: 22 },
    ];
    const text = renderTable(rows, [
      { header: 'id', get: (r) => r.id },
      { header: 'name', get: (r) => r.name },
      { header: 'n', get: (r) => r.n },
    ]);
    expect(text.split('\n')).toEqual(['ID         NAME        N', 'a          one\\x1b[2J  1', 'longer-id  -           22']);
  });
});
