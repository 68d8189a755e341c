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

/** The most of a refusal's body read: it is one `{code, message}` object. */
const MAX_REFUSAL_BYTES = 16 * 1024;

/**
 * A device refused a stream (a status other than 200): reads its `{code, message}` body, best
 * effort, and returns the domain error it names. `release` then ends the stream when the body was
 * read to its end, or resets it; each carrier knows how. (Ending a stream read to its end closes it
 * without a reset, which would count toward the runtime's rapid-reset guard.)
 */
export async function deviceRefusal(stream: AsyncIterable<Buffer> & { readonly readableEnded: boolean }, status: number, release: (readToEnd: boolean) => void): Promise<DomainError> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > MAX_REFUSAL_BYTES) break;
      chunks.push(chunk);
    }
  } catch {
    // The body is best effort; the status alone still makes an error.
  }
  release(stream.readableEnded);
  let body: { code?: unknown; message?: unknown } = {};
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    // Not JSON: fall back to a generic message below.
  }
  return deviceError(body, `Device refused the operation (HTTP ${status})`);
}
