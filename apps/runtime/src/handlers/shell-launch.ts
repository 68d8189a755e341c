import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { ForbiddenError, NotFoundError, ShellStreamArgs } from '@svc/common';
import { childEnvironment } from './exec-handler';

/** What a PTY is started with: program, argv, environment, working directory. */
export interface ShellLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * As `ssh` does: the given argv, or the user's login shell (`$SHELL`, else the account's shell,
 * else /bin/sh) with `-l`, started in the home directory, with TERM set and the runtime's own
 * secrets removed. A program that cannot run is refused before the stream is accepted (after a
 * fork the PTY could only report it as output).
 */
export function shellLaunch(args: ShellStreamArgs): ShellLaunch {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(childEnvironment(args.env))) if (value !== undefined) env[name] = value;
  // The PTY carries the size; stale values inherited from the runtime's own terminal would lie.
  delete env.COLUMNS;
  delete env.LINES;
  env.TERM = args.term;
  const [file, ...rest] = args.command ?? [loginShell(env), '-l'];
  return { file: executable(file, env.PATH), args: rest, env, cwd: workingDirectory() };
}

function loginShell(env: Record<string, string>): string {
  if (env.SHELL) return env.SHELL;
  try {
    return userInfo().shell || '/bin/sh';
  } catch {
    return '/bin/sh';
  }
}

/** The path of `program` (searched on PATH when it has no slash), as execvp would find it. */
function executable(program: string, path: string | undefined): string {
  const candidates = program.includes('/') ? [program] : (path ?? '/usr/bin:/bin').split(delimiter).filter(Boolean).map((dir) => join(dir, program));
  let denied = false;
  for (const candidate of candidates) {
    if (!isFile(candidate)) continue;
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      denied = true;
    }
  }
  if (denied) throw new ForbiddenError(`Permission denied: ${program}`);
  throw new NotFoundError(`Command not found: ${program}`);
}

function workingDirectory(): string {
  const home = homedir();
  return home && isDirectory(home) ? home : '/';
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
