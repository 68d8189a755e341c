import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, ErrorBody, ErrorCode } from '@svc/common';
import { currentRequestId } from '../logging/request-context';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'STORAGE_UNAVAILABLE',
  504: 'TIMEOUT',
};

/** The one mapping from anything thrown to `{statusCode, error, message, code, requestId}`. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const body = this.toBody(exception);
    if (exception instanceof DomainError) {
      // A known condition (device offline, storage down, timeout): one line; the request line carries the rest.
      if (body.statusCode >= 500) this.logger.warn(`${body.code}: ${body.message}`);
    } else if (body.statusCode >= 500) this.logger.error(exception instanceof Error ? exception : String(exception));
    if (res.headersSent) return;
    res.status(body.statusCode).json(body);
  }

  toBody(exception: unknown): ErrorBody {
    const requestId = currentRequestId();
    if (exception instanceof DomainError) {
      return { statusCode: exception.status, error: reason(exception.status), message: exception.message, code: exception.code, requestId };
    }
    const status = httpStatusOf(exception);
    if (status !== undefined && status < 500) {
      return { statusCode: status, error: reason(status), message: messageOf(exception, status), code: CODE_BY_STATUS[status] ?? 'INVALID_INPUT', requestId };
    }
    return { statusCode: 500, error: reason(500), message: 'Internal server error', code: 'INTERNAL', requestId };
  }
}

function httpStatusOf(exception: unknown): number | undefined {
  return exception instanceof HttpException ? exception.getStatus() : undefined;
}

function messageOf(exception: unknown, status: number): string {
  if (exception instanceof HttpException) {
    const response = exception.getResponse();
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const message = (response as { message: unknown }).message;
      if (Array.isArray(message)) return message.join('; ');
      if (typeof message === 'string') return message;
    }
    if (status === 404) return 'Route not found';
    return exception.message;
  }
  return reason(status);
}

function reason(status: number): string {
  const name = HttpStatus[status];
  if (typeof name !== 'string') return 'Error';
  return name
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

