import { errorFromAnswer, ErrorAnswer, ServerUnreachableError } from '@svc/common';

export { ServerUnreachableError };

/** An error answer of the server (`{statusCode, error, message, code, requestId}`), or of a proxy in front of it. */
export class ApiError extends ErrorAnswer {
  /** The answer read by the one parser every client path shares (libs/common error-answer.ts). */
  static fromBody(status: number, body: unknown): ApiError {
    const answer = errorFromAnswer(status, body);
    return new ApiError(answer.code, answer.message, answer.statusCode, answer.requestId);
  }
}

/** Failures of the connection itself: nothing (or not all) reached the server. */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

/** `error` as ServerUnreachableError when the connection to the server at `url` failed; any other error as it is. */
export function asServerUnreachable(url: string | URL, error: Error): Error {
  const code = (error as NodeJS.ErrnoException).code;
  return code && CONNECTION_FAILURES.has(code) ? new ServerUnreachableError(url, error.message) : error;
}
