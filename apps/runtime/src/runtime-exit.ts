/**
 * Exit codes of `svc runtime run` (documented in docs/architecture.md, "Runtime"):
 * 0 clean stop (SIGTERM/SIGINT) · 1 failure (registration rejected or not approved in time,
 * server unreachable during registration…) · 2 bad usage or configuration · 3 the server refused
 * the API key (stop retrying; `--reregister` registers again) · 4 another runtime holds the lock.
 */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2, keyRefused: 3, alreadyRunning: 4 } as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/**
 * The exits that starting again cannot mend, so the unit does not restart on them
 * (RestartPreventExitStatus=): a configuration someone has to fix, a key the server refused, a
 * lock another runtime holds. `failed` stays restartable: it also ends a registration that was not
 * approved in time, and an unexpected crash.
 */
export const PERMANENT_EXIT_CODES: readonly ExitCode[] = [EXIT_CODES.usage, EXIT_CODES.keyRefused, EXIT_CODES.alreadyRunning];

const MEANINGS: Record<ExitCode, string> = {
  0: 'stopped',
  1: 'failed',
  2: 'bad usage or configuration',
  3: 'the server refused the API key',
  4: 'another runtime is already running',
};

/** "4 (another runtime is already running)", for a person reading why the runtime ended. */
export function describeExitCode(code: number): string {
  const meaning = (MEANINGS as Record<number, string | undefined>)[code];
  return meaning === undefined ? String(code) : `${code} (${meaning})`;
}

/** An expected way for the runtime to stop: one clear line for the person, and an exit code. */
export class RuntimeExit extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeExit';
  }
}
