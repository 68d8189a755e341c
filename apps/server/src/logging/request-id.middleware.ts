import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { CLIENT_KIND_HEADER } from '@svc/common';
import { announcesMcp, requestContext } from './request-context';
import type { JsonLogger } from './json-logger';

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * Assigns every request an id (a well-formed incoming `X-Request-Id` is kept so a caller can
 * correlate), echoes it in the response, and writes one access line when the response ends.
 * The line has method, path without query string (queries may carry request ids of pending
 * registrations), status and duration: never headers, never bodies.
 */
export function requestIdMiddleware(logger: JsonLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    requestContext.run({ requestId, viaMcp: announcesMcp(req.headers[CLIENT_KIND_HEADER]) }, () => {
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        logger.event(res.statusCode >= 500 ? 'error' : 'info', 'request', {
          requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          remote: req.ip,
        });
      });
      next();
    });
  };
}
