import { stripAnsi } from './terminal-text';

/** oclif's own errors (unknown flag, missing argument, failed flag validation) carry an exit code. */
export function usageExitCode(error: unknown): number | undefined {
  return (error as { oclif?: { exit?: number } }).oclif?.exit;
}

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
