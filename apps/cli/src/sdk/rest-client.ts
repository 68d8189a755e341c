import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ErrorAnswer, errorFromAnswer } from '@svc/common/error-answer';
import { DomainError } from '@svc/common/errors';
import { HttpMethod } from '@svc/common/operations';
import { ServerUnreachableError } from './api-error';

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 120_000;
/** Network failures are retried this many times, waiting 0.5 s, 1 s, 2 s, … (exponential backoff). */
const RETRIES = 3;
const FIRST_BACKOFF_MS = 500;
/** Failures that mean the request never reached the server, so sending it again cannot do anything twice. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export interface RestRequest {
  method: HttpMethod;
  path: string;
  query?: [string, string][];
  body?: unknown;
  /** Credentials header value (`Bearer …`), asked for per attempt so a refreshed token is used. */
  authorization?: () => Promise<string | undefined>;
  timeoutMs?: number;
  /** What `stream` accepts (default text/plain), e.g. application/x-ndjson. */
  accept?: string;
  /** Headers of this request only (e.g. Last-Event-ID). */
  headers?: Record<string, string>;
}

export interface RestClientOptions {
  baseUrl: URL;
  ca?: string | Buffer;
  userAgent?: string;
  /** Sent on every request (e.g. CLIENT_KIND_HEADER from `svc mcp`). */
  headers?: Record<string, string>;
}

/**
 * JSON over HTTP(S) to the server's REST API. Redirects are never followed (a 3xx is an error),
 * error answers become ErrorAnswer (errorFromAnswer, the one reading every client path shares), and a request that could not reach the server is retried with
 * exponential backoff — every request when nothing was sent, reads also when the connection broke.
 */
export class RestClient {
  private readonly agent: HttpAgent;

  constructor(private readonly options: RestClientOptions) {
    this.agent = options.baseUrl.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, ca: options.ca }) : new HttpAgent({ keepAlive: true });
  }

  get baseUrl(): URL {
    return this.options.baseUrl;
  }

  async request<T>(req: RestRequest): Promise<T> {
    return this.withRetries(req, () => this.once<T>(req));
  }

  /**
   * A request whose 2xx answer is read by the caller as it arrives (a text stream such as a job's
   * log); an error answer becomes ErrorAnswer as with `request`. The timeout covers the wait for the
   * answer; once it has begun, it may stay quiet for as long as it likes (a followed log).
   */
  async stream(req: RestRequest): Promise<IncomingMessage> {
    return this.withRetries(req, async () => {
      const response = await this.send(req, req.accept ?? 'text/plain');
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        response.socket?.setTimeout(0);
        return response;
      }
      return this.answer<IncomingMessage>(response, await readBody(response));
    });
  }

  private async withRetries<T>(req: RestRequest, attemptOnce: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await attemptOnce();
      } catch (error) {
        if (error instanceof DomainError) throw error;
        const code = (error as NodeJS.ErrnoException).code ?? '';
        const retriable = NOT_SENT.has(code) || (req.method === 'GET' && (code === 'ECONNRESET' || code === 'EPIPE'));
        if (!retriable) throw this.unreachable(error as Error);
        if (attempt >= RETRIES) throw this.unreachable(error as Error);
        await new Promise((resolve) => setTimeout(resolve, FIRST_BACKOFF_MS * 2 ** attempt));
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private unreachable(error: Error): Error {
    if (!(error as NodeJS.ErrnoException).code) return error;
    return new ServerUnreachableError(this.options.baseUrl, error.message);
  }

  private async once<T>(req: RestRequest): Promise<T> {
    const response = await this.send(req, 'application/json');
    return this.answer<T>(response, await readBody(response));
  }

  private async send(req: RestRequest, accept: string): Promise<IncomingMessage> {
    const url = new URL(req.path.replace(/^\//, ''), this.options.baseUrl);
    for (const [key, value] of req.query ?? []) url.searchParams.append(key, value);
    const headers: Record<string, string> = { ...this.options.headers, ...req.headers, accept, 'user-agent': this.options.userAgent ?? 'svc-cli' };
    const authorization = await req.authorization?.();
    if (authorization) headers.authorization = authorization;
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const timeoutMs = req.timeoutMs ?? REQUEST_TIMEOUT_MS;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(url, { method: req.method, headers, agent: this.agent, timeout: timeoutMs }, resolve);
      outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })));
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  /** A read answer: its JSON for a 2xx, ErrorAnswer for an error answer, and no redirect followed. */
  private answer<T>(response: IncomingMessage, text: string): T {
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      throw new ErrorAnswer('INTERNAL', `The server answered with a redirect (HTTP ${status} to ${response.headers.location ?? '?'}); svc follows no redirects: set SVC_SERVER_URL to the final address`, status, undefined);
    }
    if (status >= 400 || status < 200) throw errorFromAnswer(status, text);
    if (text.length === 0) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ErrorAnswer('INTERNAL', `The server answered HTTP ${status} with something that is not JSON`, status, undefined);
    }
  }
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      response.destroy();
      throw new ErrorAnswer('PAYLOAD_TOO_LARGE', `The server's answer exceeds ${MAX_BODY_BYTES} bytes`, 413, undefined);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
