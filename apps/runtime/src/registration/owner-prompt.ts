import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { isScope } from '@svc/common';

const ATTEMPTS = 3;

/** On a terminal: asks who should own this device. Elsewhere: undefined (no one to ask). */
export function terminalOwnerPrompt(input: Readable & { isTTY?: boolean }, output: Writable): (() => Promise<string | undefined>) | undefined {
  if (!input.isTTY) return undefined;
  return async () => {
    const lines = createInterface({ input, output });
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const answer = (await lines.question('Owner of this device (user:<email> or org:<org_id>): ')).trim();
        if (isScope(answer)) return answer;
        output.write('That is not an owner: write user:<email> or org:<org_id>.\n');
      }
      return undefined;
    } finally {
      lines.close();
    }
  };
}
