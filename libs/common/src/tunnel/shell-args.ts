import { InvalidInputError } from '../errors';
import { SHELL_LIMITS, TERM_NAME_PATTERN } from '../operations/route-params';

export { SHELL_LIMITS };

/** Arguments of `/v1/shell` once checked (docs/protocol.md, "Shell"). */
export interface ShellStreamArgs {
  /** argv; absent: the device user's login shell, started with `-l`. */
  command?: string[];
  cols: number;
  rows: number;
  term: string;
  env?: Record<string, string>;
}

const TERM_NAME = new RegExp(TERM_NAME_PATTERN);

/**
 * Validates shell arguments; the server checks them before it reaches the device and the runtime
 * again before it spawns, with this one function. Anything off is INVALID_INPUT.
 */
export function parseShellArgs(raw: Record<string, unknown>): ShellStreamArgs {
  const { command, cols, rows, term, env, ...rest } = raw;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new InvalidInputError(`unknown shell argument ${unknown[0]}`);
  const args: ShellStreamArgs = {
    cols: terminalSize('cols', cols === undefined ? SHELL_LIMITS.defaultCols : cols),
    rows: terminalSize('rows', rows === undefined ? SHELL_LIMITS.defaultRows : rows),
    term: terminalName(term === undefined ? SHELL_LIMITS.defaultTerm : term),
  };
  if (command !== undefined) {
    if (!Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string' && !part.includes('\0')) || command[0] === '') {
      throw new InvalidInputError('command must be a non-empty array of strings (argv; no shell), command[0] naming a program');
    }
    args.command = command as string[];
  }
  if (env !== undefined) args.env = parseEnvArgument(env);
  return args;
}

/** A RESIZE frame's `{cols, rows}` or the initial size: whole numbers within SHELL_LIMITS. */
export function terminalSize(name: 'cols' | 'rows', value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < SHELL_LIMITS.minSize || value > SHELL_LIMITS.maxSize) {
    throw new InvalidInputError(`${name} must be a whole number from ${SHELL_LIMITS.minSize} to ${SHELL_LIMITS.maxSize}`);
  }
  return value;
}

function terminalName(value: unknown): string {
  if (typeof value !== 'string' || value.length > SHELL_LIMITS.maxTermChars || !TERM_NAME.test(value)) {
    throw new InvalidInputError('term must be a terminal type name such as xterm-256color');
  }
  return value;
}

/** `env` of exec and shell: variable names (no `=`, no NUL) to string values (no NUL). */
export function parseEnvArgument(env: unknown): Record<string, string> {
  if (env === null || typeof env !== 'object' || Array.isArray(env)) throw new InvalidInputError('env must be an object of strings');
  for (const [name, value] of Object.entries(env)) {
    if (!/^[^=\0]+$/.test(name) || typeof value !== 'string' || value.includes('\0')) {
      throw new InvalidInputError(`env ${JSON.stringify(name)} must be a variable name with a string value`);
    }
  }
  return env as Record<string, string>;
}
