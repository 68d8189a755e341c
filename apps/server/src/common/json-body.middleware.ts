import { json, NextFunction, Request, Response } from 'express';
import { DomainError, InvalidInputError, LIMITS } from '@svc/common';
import { jsonNestsDeeperThan } from './json-depth';

/**
 * Fixed here rather than left to the parser, whose list follows the Node version (from Node 22.15
 * it would also take zstd): the same request gets the same answer on every supported Node.
 */
const CONTENT_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'];
const BODILESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);
/**
 * Routes whose body may be larger than `maxJsonBodyBytes` (a deployment with its inlined files):
 * with credentials they read it themselves once authenticated (`readLargeJsonBody`), so nobody
 * unauthenticated makes the server parse megabytes; without, the usual limit applies.
 */
const LARGE_BODY_ROUTES = [/^\/devices\/[^/]+\/deployments\/jobs\/?$/];

/** Thrown from the parser's verify hook; carries the answer to give. */
class BodyRefused extends Error {
  constructor(readonly answer: DomainError) {
    super(answer.message);
  }
}

/**
 * JSON bodies, checked at the door: a body only where a route takes one, `application/json` in
 * UTF-8, a known content-encoding, at most `maxJsonBodyBytes` once decoded and `maxJsonDepth`
 * levels of nesting. Every refusal is a domain error here, where its cause is known: Nest would
 * turn the parser's own errors into a 400 with the parser's words, or a 500 for decoding errors.
 */
export function jsonBodyMiddleware(bodyTimeoutMs: number) {
  const parse = json({ limit: LIMITS.maxJsonBodyBytes, strict: true, verify: checkDecodedBody });
  return (req: Request, res: Response, next: NextFunction): void => {
    // A file upload (PUT, octet-stream) is streamed by its route itself, never parsed or buffered here.
    if (req.method === 'PUT' && req.is('application/octet-stream')) return next();
    const refused = carriesBody(req) ? refusal(req) : undefined;
    if (refused) return next(refused);
    if (readByRoute(req)) return next();
    const done = (err?: unknown) => next(err === undefined ? undefined : toDomainError(err, req, LIMITS.maxJsonBodyBytes));
    if (!carriesBody(req)) return parse(req, res, done);
    readWithinDeadline(parse, req, res, bodyTimeoutMs, done);
  };
}

type BodyParser = (req: Request, res: Response, next: (err?: unknown) => void) => void;

/**
 * Runs the parser, but answers 408 REQUEST_TIMEOUT once the body has not arrived whole within
 * `timeoutMs` (REST_BODY_TIMEOUT_MS), with `Connection: close` so that the connection (and whatever
 * the sender would still trickle) goes with the answer. The parser's own callback, coming later
 * when the socket closes, is ignored. A large body read by its route once the caller is
 * authenticated has no such deadline, like a streamed upload.
 */
function readWithinDeadline(parse: BodyParser, req: Request, res: Response, timeoutMs: number, done: (err?: unknown) => void): void {
  let settled = false;
  const timer = setTimeout(() => {
    settled = true;
    res.setHeader('Connection', 'close');
    done(new DomainError('REQUEST_TIMEOUT', `Request body did not arrive within ${timeoutMs / 1000} s`));
  }, timeoutMs);
  parse(req, res, (err?: unknown) => {
    clearTimeout(timer);
    if (!settled) done(err);
  });
}

function readByRoute(req: Request): boolean {
  const credentials = req.headers.authorization !== undefined || req.headers['x-admin-key'] !== undefined;
  return credentials && req.method === 'POST' && LARGE_BODY_ROUTES.some((route) => route.test(req.path));
}

/**
 * The JSON body of a large-body route (LARGE_BODY_ROUTES), read after authentication with the
 * route's own limit and every other rule of the middleware; undefined when the request has none.
 */
export function readLargeJsonBody(req: Request, res: Response, limit: number): Promise<unknown> {
  if ((req as { _body?: boolean })._body) return Promise.resolve(req.body);
  const parse = json({ limit, strict: true, verify: checkDecodedBody });
  return new Promise((resolve, reject) => parse(req, res, (err?: unknown) => (err === undefined ? resolve(req.body) : reject(toDomainError(err, req, limit)))));
}

/** A declared length of 0 is no body; some clients send it on every request. */
function carriesBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function refusal(req: Request): DomainError | undefined {
  if (BODILESS_METHODS.has(req.method)) return new InvalidInputError(`${req.method} requests take no body`);
  if (!req.is('application/json')) return new InvalidInputError('Request body must be JSON (content-type: application/json)');
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (!CONTENT_ENCODINGS.includes(encoding)) return new InvalidInputError(`Unsupported content-encoding; send ${CONTENT_ENCODINGS.join(', ')}`);
  return undefined;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Runs on the decoded bytes, before JSON.parse, with the charset the parser would decode with. */
function checkDecodedBody(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  if (charset !== 'utf-8' && charset !== 'utf8') throw new BodyRefused(unsupportedCharset());
  // The parser would decode invalid sequences as U+FFFD: a name or path changed silently.
  try {
    STRICT_UTF8.decode(body);
  } catch {
    throw new BodyRefused(new InvalidInputError('Request body is not valid UTF-8'));
  }
  if (jsonNestsDeeperThan(body, LIMITS.maxJsonDepth)) {
    throw new BodyRefused(new InvalidInputError(`Request body is nested more than ${LIMITS.maxJsonDepth} levels deep`));
  }
}

function unsupportedCharset(): DomainError {
  return new InvalidInputError('Unsupported charset; send UTF-8 JSON');
}

function toDomainError(err: unknown, req: Request, limit: number): unknown {
  if (err instanceof BodyRefused) return err.answer;
  if (err instanceof DomainError) return err;
  const { type, status } = err as { type?: string; status?: number };
  switch (type) {
    case 'entity.parse.failed':
      return new InvalidInputError('Request body is not valid JSON');
    case 'entity.too.large':
      return new DomainError('PAYLOAD_TOO_LARGE', `Request body is too large (limit ${limit / 1024} KiB)`);
    case 'charset.unsupported':
      return unsupportedCharset();
    case 'request.aborted':
      return new InvalidInputError('Request body was aborted');
    case 'request.size.invalid':
      return new InvalidInputError('Request body length does not match content-length');
  }
  // Decompression errors come from zlib without a type; the parser marks them 400.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    return new InvalidInputError(encoding === 'identity' ? 'Request body could not be read' : `Request body could not be decoded as ${encoding}`);
  }
  return err;
}
