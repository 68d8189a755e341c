import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface ApiAnswer {
  status: number;
  body: unknown;
  /** The server's clock (Date header, ms), when it sent one. */
  date?: number;
}

/** The server could not be reached or answered nonsense: worth retrying later. */
export class ServerUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerUnreachableError';
  }
}

/**
 * The REST calls the runtime makes (registration and discovery), over node:http(s) so that the
 * CA file given for a self-hosted server applies. Follows no redirects; answers any status with
 * its parsed JSON body.
 */
export class ServerApi {
  constructor(
    readonly baseUrl: URL,
    private readonly ca?: Buffer,
  ) {}

  get(path: string, headers: Record<string, string> = {}): Promise<ApiAnswer> {
    return this.call('GET', path, headers);
  }

  post(path: string, body: unknown): Promise<ApiAnswer> {
    return this.call('POST', path, { 'content-type': 'application/json' }, JSON.stringify(body));
  }

  private call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<ApiAnswer> {
    const url = new URL(path, this.baseUrl);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers: { accept: 'application/json', ...headers }, ca: this.ca, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new ServerUnreachableError(`answer of ${method} ${url.pathname} is too large`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            const date = res.headers.date ? Date.parse(res.headers.date) : NaN;
            resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text), ...(Number.isNaN(date) ? {} : { date }) });
          } catch {
            reject(new ServerUnreachableError(`${method} ${url.pathname} answered ${res.statusCode} with a body that is not JSON`));
          }
        });
        res.on('error', (error) => reject(new ServerUnreachableError(error.message)));
      });
      req.on('timeout', () => req.destroy(new ServerUnreachableError(`${method} ${url.pathname}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (error) => reject(error instanceof ServerUnreachableError ? error : new ServerUnreachableError(`cannot reach ${url.origin}: ${error.message}`)));
      req.end(body);
    });
  }
}
