import { createInterface } from 'node:readline';
import { DomainError } from '@svc/common/errors';
import { limitsOf } from '@svc/common/operations';
import type { SvcClient } from './svc-client';

/** The NDJSON lines of POST /api/exec for a batch (docs/protocol.md, "Exec"), each tagged with its device. */
export type ExecBatchLine =
  | { device: string; stream: 'stdout' | 'stderr'; data: string }
  | { device: string; exit_code: number; timed_out: boolean }
  | { device: string; error: string; code: string };

export interface ExecBatchInput {
  devices: string[];
  command: string[];
  timeout_secs: number;
}

/** The HTTP answer may wait this long past the command's timeout: the server's grace for the device (the catalog's), and as long again for the answer. */
export const ANSWER_GRACE_MS = 2 * limitsOf('device_exec').deviceGraceMs;
const NDJSON = 'application/x-ndjson';

/**
 * device_exec on several devices, line by line as the server relays them (`Accept:
 * application/x-ndjson`): output of every device as produced, each device's end as it comes.
 * The command's stdin is closed at once, as pdsh and ansible do. An answer cut short rejects;
 * `signal` leaves it, and the call then rejects with the signal's reason.
 */
export async function* execBatchLines(client: SvcClient, input: ExecBatchInput, signal?: AbortSignal): AsyncGenerator<ExecBatchLine> {
  const response = await client.rest.stream({
    method: 'POST',
    path: '/api/exec',
    body: input,
    accept: NDJSON,
    authorization: () => client.session.authorization(),
    timeoutMs: input.timeout_secs * 1000 + ANSWER_GRACE_MS,
  });
  let broken = false;
  response.once('aborted', () => (broken = true)).once('error', () => (broken = true));
  const lines = createInterface({ input: response, crlfDelay: Infinity });
  // readline waits for 'end', which a destroyed answer never emits.
  response.once('close', () => lines.close());
  // Leaving the answer stops the batch: the server cancels the devices' streams.
  const cancel = () => response.destroy();
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  for await (const text of lines) {
    if (text.length === 0) continue;
    let line: ExecBatchLine;
    try {
      line = JSON.parse(text) as ExecBatchLine;
    } catch {
      throw new DomainError('INTERNAL', 'The server sent a line that is not JSON');
    }
    yield line;
  }
  signal?.removeEventListener('abort', cancel);
  if (signal?.aborted) throw signal.reason;
  if (broken || !response.complete) throw new DomainError('DEVICE_OFFLINE', 'The answer was cut off: the server went away');
}
