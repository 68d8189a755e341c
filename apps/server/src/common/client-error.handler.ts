import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '@svc/common';

/**
 * Requests Node refuses before any route sees them (header block over 16 KiB, malformed request
 * line, headers not complete within headersTimeout) would get a bare status line. They get the API's error body instead, so every client sees
 * one error shape.
 */
export function installClientErrorHandler(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const body: ErrorBody =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? { statusCode: 431, error: 'Request Header Fields Too Large', message: 'Request line or headers are too large (limit 16 KiB)', code: 'INVALID_INPUT', requestId }
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? { statusCode: 408, error: 'Request Timeout', message: 'Request headers did not arrive in time', code: 'REQUEST_TIMEOUT', requestId }
          : { statusCode: 400, error: 'Bad Request', message: 'Malformed HTTP request', code: 'INVALID_INPUT', requestId };
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${body.statusCode} ${body.error}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}
