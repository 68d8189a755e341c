/**
 * Exit codes of `svc runtime run` (documented in docs/architecture.md, "Runtime"):
 * 0 clean stop (SIGTERM/SIGINT) · 1 failure (registration rejected or not approved in time,
 * server unreachable during registration…) · 2 bad usage or configuration · 3 the server refused
 * the API key (stop retrying; `--reregister` registers again) · 4 another runtime holds the lock.
 */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2, keyRefused: 3, alreadyRunning: 4 } as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

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
