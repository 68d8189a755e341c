import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

/** How long a small GET may take, connection included. */
const GET_TIMEOUT_MS = 30_000;
/** Larger answers are cut off: these are small JSON documents. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A small GET over node:http(s), answering the status and the body as text. Not `fetch`: Node
 * loads its fetch implementation (undici) on first use, tens of milliseconds of every short-lived
 * `svc` process that needs one answer before its real work. Network failures reject with the
 * socket's error.
 */
export function plainGet(url: URL): Promise<{ status: number; text: string }> {
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: GET_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) return void req.destroy(new Error(`answer of ${url.pathname} is larger than ${MAX_BODY_BYTES} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 500, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${GET_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
  });
}

/** `text` parsed as JSON, or `fallback` when it is not JSON. */
export function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
