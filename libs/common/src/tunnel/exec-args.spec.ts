import { InvalidInputError } from '../errors';
import { parseExecArgs } from './exec-args';

describe('parseExecArgs', () => {
  it('fills the defaults', () => {
    expect(parseExecArgs({ command: ['true'] })).toEqual({ command: ['true'], timeout_secs: 30, stdin: false });
  });

  it('keeps what is given', () => {
    expect(parseExecArgs({ command: ['cat'], timeout_secs: 0.5, stdin: true, env: { A: 'b' }, cwd: '/tmp' })).toEqual({
      command: ['cat'],
      timeout_secs: 0.5,
      stdin: true,
      env: { A: 'b' },
      cwd: '/tmp',
    });
  });

  it.each([
    ['no command', {}, /command must be/],
    ['an empty command', { command: [] }, /command must be/],
    ['a command that is not strings', { command: ['ls', 1] }, /command must be/],
    ['a NUL in an argument', { command: ['ls', 'a\0b'] }, /command must be/],
    ['an empty program', { command: [''] }, /must name a program/],
    ['a zero timeout', { command: ['true'], timeout_secs: 0 }, /timeout_secs must be/],
    ['a timeout over a day', { command: ['true'], timeout_secs: 86_401 }, /timeout_secs must be/],
    ['a timeout that is text', { command: ['true'], timeout_secs: '30' }, /timeout_secs must be/],
    ['stdin that is not a boolean', { command: ['true'], stdin: 'yes' }, /stdin must be/],
    ['an empty cwd', { command: ['true'], cwd: '' }, /cwd must be/],
    ['an unknown field', { command: ['true'], shell: true }, /unknown exec argument shell/],
  ])('refuses %s', (_name, args, message) => {
    expect(() => parseExecArgs(args as Record<string, unknown>)).toThrow(InvalidInputError);
    expect(() => parseExecArgs(args as Record<string, unknown>)).toThrow(message);
  });
});
