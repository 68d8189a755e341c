import { Agent as HttpAgent, IncomingMessage, request as httpRequest, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeviceLostError, DomainError, errorFromAnswer, FILE_HTTP_HEADERS, FileMetadata, findSubRoute, formatModeHeader, isSha256, parseIntegerHeader, parseModeHeader, SubRouteName, subRoutePath } from '@svc/common';
import { asServerUnreachable } from './api-error';
import { DeviceStreamError } from './device-streams';

const MAX_ERROR_BODY_BYTES = 16 * 1024;

export interface FilesHttpOptions {
  /** The server's REST base URL. */
  serverUrl: string | URL;
  /** The user's access token; asked for every request, so a refreshed token is picked up. */
  token: () => string | Promise<string>;
  /** CA certificate(s) to trust for an https server (the staging CA file); the platform store otherwise. */
  ca?: string | Buffer;
  /** Sent on every request (e.g. CLIENT_KIND_HEADER from `svc mcp`). */
  headers?: Record<string, string>;
}

/** A download under way: the file's metadata now, its bytes as `body`, the checksum once `body` ended. */
export interface Download extends FileMetadata {
  body: IncomingMessage;
  /** The `x-svc-sha256` trailer; undefined when the transfer broke before it came. */
  sha256(): string | undefined;
}

/**
 * The device file routes (docs/protocol.md, "Files") over HTTP/1.1 with streaming bodies both
 * ways: uploads are chunked with the checksum as a trailer, downloads ask for the trailer (`TE:
 * trailers`). Nothing is buffered beyond the sockets; error answers become DeviceStreamError.
 */
export class FilesHttp {
  private readonly base: URL;
  private readonly agent: HttpAgent;

  constructor(private readonly options: FilesHttpOptions) {
    this.base = new URL(options.serverUrl);
    this.agent = this.base.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, ca: options.ca }) : new HttpAgent({ keepAlive: true });
  }

  /** A file route of the catalog that answers JSON (device_ls's listing, device_sync's delete and end). */
  async json<T>(route: SubRouteName, device: string, query: Record<string, string> = {}, body?: unknown): Promise<T> {
    const res = await this.send(route, device, query, body === undefined ? {} : { 'content-type': 'application/json' }, (req) => req.end(body === undefined ? undefined : JSON.stringify(body)));
    return JSON.parse(await readAll(res)) as T;
  }

  /** POST …/manifest: the NDJSON answer, unread, the entries sync skips included (marked `skipped`). */
  manifest(device: string, body: object): Promise<IncomingMessage> {
    const headers = { 'content-type': 'application/json', [FILE_HTTP_HEADERS.listSkipped]: '1' };
    return this.send('device_sync.manifest', device, {}, headers, (req) => req.end(JSON.stringify(body)));
  }

  async download(device: string, query: Record<string, string>): Promise<Download> {
    const res = await this.send('device_cp.download', device, query, { te: 'trailers' }, (req) => req.end());
    const size = parseIntegerHeader(res.headers[FILE_HTTP_HEADERS.size], FILE_HTTP_HEADERS.size) ?? 0;
    const mode = parseModeHeader(res.headers[FILE_HTTP_HEADERS.mode], FILE_HTTP_HEADERS.mode) ?? 0o644;
    const mtime = parseIntegerHeader(res.headers[FILE_HTTP_HEADERS.mtime], FILE_HTTP_HEADERS.mtime) ?? Date.now();
    return {
      size,
      mode,
      mtime,
      body: res,
      sha256: () => {
        const value = res.trailers[FILE_HTTP_HEADERS.sha256];
        return isSha256(value) ? value : undefined;
      },
    };
  }

  /**
   * PUT …/content: streams `data` (exactly `meta.size` bytes) and sends `sha256()` as the trailer
   * once it has ended; answers what the device wrote. A data stream that fails aborts the request,
   * so the device discards its temp file.
   */
  async upload(device: string, query: Record<string, string>, meta: FileMetadata, data: Readable, sha256: () => string): Promise<{ path: string; size: number; sha256: string }> {
    const headers = {
      'content-type': 'application/octet-stream',
      trailer: FILE_HTTP_HEADERS.sha256,
      [FILE_HTTP_HEADERS.size]: String(meta.size),
      [FILE_HTTP_HEADERS.mode]: formatModeHeader(meta.mode),
      [FILE_HTTP_HEADERS.mtime]: String(meta.mtime),
    };
    const res = await this.send('device_cp.upload', device, query, headers, (req) => {
      pipeline(data, req, { end: false }).then(
        () => {
          req.addTrailers({ [FILE_HTTP_HEADERS.sha256]: sha256() });
          req.end();
        },
        (err: Error) => req.destroy(err),
      );
    });
    return JSON.parse(await readAll(res));
  }

  close(): void {
    this.agent.destroy();
  }

  /** Sends one request; resolves with a 2xx response, rejects with the server's error answer. */
  private async send(
    route: SubRouteName,
    device: string,
    query: Record<string, string>,
    headers: Record<string, string>,
    write: (req: ReturnType<typeof httpRequest>) => void,
  ): Promise<IncomingMessage> {
    const url = new URL(subRoutePath(route, { device }).slice(1), this.base.href.endsWith('/') ? this.base : `${this.base.href}/`);
    const method = findSubRoute(route)!.method;
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const options: RequestOptions = { method, agent: this.agent, headers: { ...this.options.headers, ...headers, authorization: `Bearer ${await this.options.token()}` } };
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, resolve);
      req.on('error', (error) => reject(asServerUnreachable(url, error)));
      write(req);
    });
    if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) return res;
    throw await refusal(res);
  }
}

async function refusal(res: IncomingMessage): Promise<DeviceStreamError> {
  return errorFromAnswer(res.statusCode ?? 500, await readAll(res, MAX_ERROR_BODY_BYTES));
}

async function readAll(res: IncomingMessage, limit = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A download's body whose breaking names its cause: the server cuts the response when the
 * device's stream breaks (runtime killed, tunnel lost), which reaches here as ECONNRESET or an
 * aborted response. Reported as the device lost rather than a local file error.
 */
export function deviceLost(body: IncomingMessage, device: string, path: string): Readable {
  const out = new PassThrough();
  const lost = () => out.destroy(new DeviceLostError(device, `the download of ${path}`));
  body.once('error', lost);
  body.once('close', () => {
    if (!body.complete) lost();
  });
  out.once('close', () => body.destroy());
  body.pipe(out);
  return out;
}
