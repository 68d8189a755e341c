import { stripAnsi } from './terminal-text';

/** oclif's own errors (unknown flag, missing argument, failed flag validation) carry an exit code. */
export function usageExitCode(error: unknown): number | undefined {
  return (error as { oclif?: { exit?: number } }).oclif?.exit;
}

/**
 * An error thrown while the command line was parsed is a usage error, a custom flag's refusal
 * included (oclif prefixes its message with "Parsing --flag" but gives it no exit code).
 */
export function asUsageError(error: unknown): unknown {
  if (error instanceof Error && usageExitCode(error) === undefined) Object.assign(error, { oclif: { exit: USAGE_EXIT } });
  return error;
}

const USAGE_EXIT = 2;
const FOLLOWING_ERRORS = /^The following errors? occurred:$/;
const MORE_HELP = /^See more help with --help$/;

/**
 * oclif's message for a usage error as lines: without its colours and its generic help hint, and
 * with "The following error occurred:" left out when only one error follows.
 */
export function usageErrorLines(message: string): string[] {
  const lines = stripAnsi(message)
    .split('\n')
    .map((line) => line.trimEnd().replace(/^\s+/, (indent) => (indent ? '  ' : '')))
    .filter((line) => line !== '' && !MORE_HELP.test(line));
  return lines.length === 2 && FOLLOWING_ERRORS.test(lines[0]) ? [lines[1].trim()] : lines;
}
