import { DomainError, ErrorCode, HTTP_STATUS_BY_CODE } from './errors';

// Browser-safe (the dashboard reads its answers with it): no node builtin, no Buffer.

/**
 * An error answer to an HTTP request (REST, file transfer, a client stream): its code and message,
 * the HTTP status and the server's request id when svc itself answered.
 */
export class ErrorAnswer extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly statusCode: number,
    readonly requestId: string | undefined,
  ) {
    super(code, message);
  }
}

/** svc's server could not be reached at all: refused, no route, unknown name, TLS failure, connection lost. */
export class ServerUnreachableError extends DomainError {
  constructor(url: string | URL, reason: string) {
    super('SERVER_UNREACHABLE', `Cannot reach the server at ${typeof url === 'string' ? url : url.origin}: ${reason}`);
  }
}

/** What a proxy or load balancer answers when the server behind it does not. */
const GATEWAY_STATUSES: Record<number, string> = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

/**
 * The one reading of an error answer, for every client path. `body` is the answer's text (or
 * bytes, or what was already parsed). svc always answers `{statusCode, error, message, code,
 * requestId}`; anything else came from something in front of it. A 502, 503 or 504 in another
 * shape is a proxy saying the svc server is down or unreachable, never a device's fault.
 */
export function errorFromAnswer(status: number, body: unknown): ErrorAnswer {
  const answer = readErrorBody(body);
  if (answer) return new ErrorAnswer(answer.code, answer.message, status, answer.requestId);
  const gateway = GATEWAY_STATUSES[status];
  if (gateway) {
    return new ErrorAnswer('BAD_GATEWAY', `A proxy in front of the svc server answered HTTP ${status} (${gateway}): the svc server behind it is down or unreachable`, status, undefined);
  }
  return new ErrorAnswer(codeForStatus(status), `The server answered HTTP ${status}, not with an svc error answer`, status, undefined);
}

/** `{code, message, requestId?}` when `body` is in svc's error shape (an answer, or a tunnel ERROR frame's body). */
export function readErrorBody(body: unknown): { code: ErrorCode; message: string; requestId?: string } | undefined {
  let value = body;
  if (typeof value === 'string' || value instanceof Uint8Array) {
    try {
      value = JSON.parse(typeof value === 'string' ? value : new TextDecoder().decode(value));
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message, requestId } = value as { code?: unknown; message?: unknown; requestId?: unknown };
  if (typeof code !== 'string' || !Object.hasOwn(HTTP_STATUS_BY_CODE, code) || typeof message !== 'string') return undefined;
  return { code: code as ErrorCode, message, ...(typeof requestId === 'string' ? { requestId } : {}) };
}

/**
 * A device stream's ERROR frame (`{code, message}`, docs/protocol.md) as an error: its code when
 * svc knows it, INTERNAL otherwise, with the status that code answers over REST; `fallback` when
 * the frame carries no message.
 */
export function errorFromFrame(body: unknown, fallback: string): ErrorAnswer {
  const { code, message } = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown };
  const known: ErrorCode = typeof code === 'string' && Object.hasOwn(HTTP_STATUS_BY_CODE, code) ? (code as ErrorCode) : 'INTERNAL';
  return new ErrorAnswer(known, typeof message === 'string' ? message : fallback, HTTP_STATUS_BY_CODE[known], undefined);
}

function codeForStatus(status: number): ErrorCode {
  const match = Object.entries(HTTP_STATUS_BY_CODE).find(([, s]) => s === status);
  return (match?.[0] as ErrorCode | undefined) ?? 'INTERNAL';
}
