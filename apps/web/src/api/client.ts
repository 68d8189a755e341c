import { errorFromAnswer, ServerUnreachableError } from '@svc/common/error-answer';

/**
 * The REST API as the dashboard calls it: the same routes, the same AccessPolicy as `svc`. Every
 * refusal is read by libs/common's errorFromAnswer, as the CLI and the runtime read theirs: an
 * ErrorAnswer with the body's `code`, `message` and `requestId` and the HTTP status (a proxy's
 * answer in another shape says so instead of passing for svc's). A server that cannot be reached
 * is a ServerUnreachableError (SERVER_UNREACHABLE).
 */
export type TokenSource = () => string | null;

export class ApiClient {
  constructor(private readonly token: TokenSource) {}

  /** The caller's access token for a channel that is not fetch (the terminal's WebSocket subprotocol), or null when signed out. */
  accessToken(): string | null {
    return this.token();
  }

  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(key, String(value));
    const suffix = search.size > 0 ? `?${search}` : '';
    return this.json<T>('GET', `${path}${suffix}`);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>('POST', path, body);
  }

  /** Any method with a JSON body and a JSON answer (DELETE, PATCH, …). */
  request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.json<T>(method, path, body);
  }

  /** A GET whose text answer is read as it arrives (a followed log); fails like `get` on an error status. */
  async readText(path: string, onText: (text: string) => void, signal?: AbortSignal): Promise<void> {
    const res = await this.send('GET', path, undefined, 'text/plain, application/json', signal);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      onText(value);
    }
  }

  /** A request whose answer is read as it arrives (NDJSON lines); fails like `get` on an error status. */
  async stream(path: string, body: unknown, onLine: (line: Record<string, unknown>) => void, signal?: AbortSignal): Promise<void> {
    const res = await this.send('POST', path, body, 'application/x-ndjson', signal);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let pending = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += value;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') onLine(JSON.parse(line) as Record<string, unknown>);
    }
    if (pending.trim() !== '') onLine(JSON.parse(pending) as Record<string, unknown>);
  }

  /** A request with a body of bytes (an upload) or an answer of bytes (a download); fails like `get` on an error status. */
  raw(method: string, path: string, options: { body?: Blob; headers?: Record<string, string> } = {}): Promise<Response> {
    return this.send(method, path, options.body, 'application/octet-stream, application/json', undefined, options.headers);
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body, 'application/json');
    return (await res.json()) as T;
  }

  private async send(method: string, path: string, body: unknown, accept: string, signal?: AbortSignal, extra: Record<string, string> = {}): Promise<Response> {
    const headers: Record<string, string> = { accept, ...extra };
    const token = this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    const blob = body instanceof Blob;
    if (body !== undefined) headers['content-type'] = blob ? 'application/octet-stream' : 'application/json';
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : blob ? body : JSON.stringify(body), signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ServerUnreachableError(location.origin, (error as Error).message);
    }
    if (res.ok) return res;
    throw errorFromAnswer(res.status, await res.text());
  }
}
