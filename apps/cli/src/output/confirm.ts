import { createInterface } from 'node:readline/promises';
import { InvalidInputError } from '@svc/common';

/**
 * Confirms a destructive step: `--yes` confirms; otherwise the question is asked on the terminal
 * (stdin and stderr both a TTY). Without a terminal and without `--yes` it refuses, so a script
 * never does the destructive thing by accident.
 */
export async function confirmDestructive(warning: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw new InvalidInputError(`${warning}. Pass --yes to confirm (there is no terminal to ask on)`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${warning}.\nContinue? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}
