import { DomainError } from '@svc/common/errors';

/**
 * Exit codes of every `svc` command (docs/cli.md): scripts can tell a negative answer from a
 * failure, and a failure that needs a new login from the others. `svc exec` and `svc shell`
 * exit with the remote command's own code instead.
 */
export const EXIT = {
  OK: 0,
  /** The command worked and its answer is negative: a device not online or not healthy, a failed exec in a batch. */
  NEGATIVE: 1,
  /** The command failed: bad usage or input, not found, access denied, device offline, server error. */
  FAILED: 2,
  /** Not logged in, the session expired beyond refresh, or the login itself failed. */
  AUTH: 3,
  /** `svc shell`: the connection ended under the session (the device's runtime stopped, the device or the server went away), as ssh. */
  CONNECTION_LOST: 255,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

/** `svc login` failed, for whatever reason (its code says which): exit 3, "Failed to auth: <reason>". */
export class LoginFailedError extends DomainError {
  constructor(reason: Error) {
    super(reason instanceof DomainError ? reason.code : 'UNAUTHENTICATED', /^Failed to auth: /.test(reason.message) ? reason.message : `Failed to auth: ${reason.message}`);
  }
}

/** An interactive session lost its connection (its code says which side): exit 255, as ssh. */
export class ConnectionLostError extends DomainError {}

export function exitCodeFor(error: unknown): number {
  if (error instanceof LoginFailedError) return EXIT.AUTH;
  if (error instanceof ConnectionLostError) return EXIT.CONNECTION_LOST;
  if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') return EXIT.AUTH;
  return EXIT.FAILED;
}
