import { DomainError, ErrorCode, HTTP_STATUS_BY_CODE } from '@svc/common';

/** An error answer of the server (`{statusCode, error, message, code, requestId}`), as a DomainError. */
export class ApiError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly statusCode: number,
    readonly requestId: string | undefined,
  ) {
    super(code, message);
  }

  static fromBody(status: number, body: unknown): ApiError {
    const fields = (body && typeof body === 'object' ? body : {}) as { code?: unknown; message?: unknown; requestId?: unknown };
    const code = typeof fields.code === 'string' && fields.code in HTTP_STATUS_BY_CODE ? (fields.code as ErrorCode) : codeForStatus(status);
    const message = typeof fields.message === 'string' ? fields.message : `The server answered HTTP ${status}`;
    return new ApiError(code, message, status, typeof fields.requestId === 'string' ? fields.requestId : undefined);
  }
}

function codeForStatus(status: number): ErrorCode {
  const match = Object.entries(HTTP_STATUS_BY_CODE).find(([, s]) => s === status);
  return (match?.[0] as ErrorCode | undefined) ?? 'INTERNAL';
}

/** The server could not be reached at all (refused, no route, name unknown, TLS failure). */
export class ServerUnreachableError extends DomainError {
  constructor(message: string) {
    super('DEVICE_OFFLINE', message);
  }
}
