import { json, NextFunction, Request, Response } from 'express';
import { DomainError, InvalidInputError, LIMITS } from '@svc/common';

/**
 * JSON body parsing with our own error words. Nest turns body-parser's errors into a
 * BadRequestException carrying the parser's internal message before any filter sees them, so
 * they are mapped to domain errors here, where the cause is still known.
 */
export function jsonBodyMiddleware() {
  const parse = json({ limit: LIMITS.maxJsonBodyBytes, strict: true });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (err?: unknown) => next(err === undefined ? undefined : toDomainError(err)));
  };
}

function toDomainError(err: unknown): unknown {
  switch ((err as { type?: string }).type) {
    case 'entity.parse.failed':
      return new InvalidInputError('Request body is not valid JSON');
    case 'entity.too.large':
      return new DomainError('PAYLOAD_TOO_LARGE', `Request body is too large (limit ${LIMITS.maxJsonBodyBytes / 1024} KiB)`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new InvalidInputError('Unsupported request body encoding; send UTF-8 JSON');
    case 'request.aborted':
      return new InvalidInputError('Request body was aborted');
    default:
      return err;
  }
}
