import { InvalidInputError } from '../errors';
import { EXEC_DEFAULT_TIMEOUT_SECS, EXEC_MAX_TIMEOUT_SECS } from '../operations/catalog';
import { parseEnvArgument } from './shell-args';
import type { ExecStreamArgs } from './stream-args';

/**
 * Validates the `svc-args` of `/v1/exec` (the runtime's, and the server's for an exec client
 * stream); anything off is INVALID_INPUT, refused before spawning.
 */
export function parseExecArgs(raw: Record<string, unknown>): ExecStreamArgs {
  const { command, timeout_secs, stdin, env, cwd, ...rest } = raw;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new InvalidInputError(`unknown exec argument ${unknown[0]}`);
  if (!Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string' && !part.includes('\0'))) {
    throw new InvalidInputError('command must be a non-empty array of strings (argv; no shell)');
  }
  if (command[0] === '') throw new InvalidInputError('command[0] must name a program');
  const timeout = timeout_secs ?? EXEC_DEFAULT_TIMEOUT_SECS;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0 || timeout > EXEC_MAX_TIMEOUT_SECS) {
    throw new InvalidInputError(`timeout_secs must be a number above 0 and at most ${EXEC_MAX_TIMEOUT_SECS}`);
  }
  if (stdin !== undefined && typeof stdin !== 'boolean') throw new InvalidInputError('stdin must be true or false');
  const args: ExecStreamArgs = { command: command as string[], timeout_secs: timeout, stdin: stdin ?? false };
  if (env !== undefined) args.env = parseEnvArgument(env);
  if (cwd !== undefined) {
    if (typeof cwd !== 'string' || cwd === '' || cwd.includes('\0')) throw new InvalidInputError('cwd must be a non-empty path');
    args.cwd = cwd;
  }
  return args;
}
