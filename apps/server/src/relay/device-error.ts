import { DomainError, ErrorCode } from '@svc/common';

/**
 * Codes a device may report (a refused stream or an ERROR frame). Anything else, e.g. a device
 * claiming UNAUTHENTICATED or DEVICE_NOT_FOUND, would let a device speak for the server, so it
 * becomes INTERNAL.
 */
const DEVICE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_INPUT', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'GONE', 'PAYLOAD_TOO_LARGE', 'CONNECTION_REFUSED', 'INSUFFICIENT_STORAGE', 'TIMEOUT', 'INTERNAL']);
const MAX_MESSAGE_CHARS = 1000;

export function deviceError(body: { code?: unknown; message?: unknown }, fallbackMessage: string): DomainError {
  const code = typeof body.code === 'string' && DEVICE_CODES.has(body.code as ErrorCode) ? (body.code as ErrorCode) : 'INTERNAL';
  const message = typeof body.message === 'string' && body.message.length > 0 ? body.message.slice(0, MAX_MESSAGE_CHARS) : fallbackMessage;
  return new DomainError(code, message);
}
