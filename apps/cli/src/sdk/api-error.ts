import { ServerUnreachableError } from '@svc/common/error-answer';

export { ServerUnreachableError };

/** Failures of the connection itself: nothing (or not all) reached the server. */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

/** `error` as ServerUnreachableError when the connection to the server at `url` failed; any other error as it is. */
export function asServerUnreachable(url: string | URL, error: Error): Error {
  const code = (error as NodeJS.ErrnoException).code;
  return code && CONNECTION_FAILURES.has(code) ? new ServerUnreachableError(url, error.message) : error;
}
