import { InvalidInputError } from '../errors';
import { parseShellArgs, terminalSize } from './shell-args';

describe('parseShellArgs', () => {
  it('fills in the defaults', () => {
    expect(parseShellArgs({})).toEqual({ cols: 80, rows: 24, term: 'xterm-256color' });
  });

  it('keeps what is given', () => {
    const args = { cols: 1000, rows: 1, term: 'screen.xterm-256color', command: ['/bin/sh', '-c', 'x'], env: { A: 'b=c' } };
    expect(parseShellArgs(args)).toEqual(args);
  });

  it.each([
    [{ cols: 0 }, 'cols'],
    [{ cols: 1001 }, 'cols'],
    [{ rows: 2.5 }, 'rows'],
    [{ rows: '24' }, 'rows'],
    [{ rows: null }, 'rows'],
    [{ term: '' }, 'term'],
    [{ term: 'xterm\u001b[2J' }, 'term'],
    [{ term: 'x'.repeat(65) }, 'term'],
    [{ command: [] }, 'command'],
    [{ command: [''] }, 'command'],
    [{ command: 'sh' }, 'command'],
    [{ command: ['sh', 'a\0b'] }, 'command'],
    [{ env: { 'A=B': 'x' } }, 'env'],
    [{ env: { A: 1 } }, 'env'],
    [{ env: ['A'] }, 'env'],
    [{ shell: true }, 'unknown shell argument shell'],
  ])('refuses %j', (raw, field) => {
    expect(() => parseShellArgs(raw as Record<string, unknown>)).toThrow(InvalidInputError);
    expect(() => parseShellArgs(raw as Record<string, unknown>)).toThrow(field);
  });

  it('checks a resize with the same bounds', () => {
    expect(terminalSize('cols', 1)).toBe(1);
    expect(() => terminalSize('rows', 0)).toThrow('rows must be a whole number from 1 to 1000');
  });
});
