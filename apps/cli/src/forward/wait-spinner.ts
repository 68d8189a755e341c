import { ux } from '@oclif/core';

/**
 * Runs `work` under a spinner on stderr while the user waits (connecting, the device answering).
 * Drawn only when both stdout and stderr are terminals and not under --json, so pipes, scripts
 * and agents see nothing but the result.
 */
export async function withSpinner<T>(text: string, json: boolean, work: () => Promise<T>): Promise<T> {
  if (json || !process.stdout.isTTY || !process.stderr.isTTY) return work();
  ux.action.start(text, undefined, { stdout: false });
  try {
    const result = await work();
    ux.action.stop();
    return result;
  } catch (error) {
    ux.action.stop('failed');
    throw error;
  }
}
