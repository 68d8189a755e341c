import { StringDecoder } from 'node:string_decoder';
import type { Response } from 'express';
import { checkRelativePath, DomainError, isSha256, ManifestEntry, MAX_FILE_MODE, SKIPPED_FILE_TYPES, SkippedFileType } from '@svc/common';
import { deviceError } from '../relay/device-error';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { NDJSON } from '../exec/ndjson-response';
import { drained } from './drained';
import type { StallDeadline } from './stall-deadline';

/** No manifest line comes near this: a longer one is a broken or hostile device. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Relays an `fs/manifest` stream as NDJSON, one entry per line, checking each entry on the way:
 * a device's listing is not trusted to stay inside its root (`../x`, absolute paths) or to be
 * well-formed, and clients build local paths from it. A bad entry, a device error line, or a
 * broken stream ends the answer with a final `{"error", "code"}` line (the status is already
 * 200), as NDJSON exec does. The HTTP response's backpressure pauses the device's walk.
 */
export async function relayManifest(tunnel: TunnelStream, res: Response, deadline: StallDeadline, options: { listSkipped: boolean }): Promise<void> {
  res.status(200).setHeader('Content-Type', `${NDJSON}; charset=utf-8`);
  res.setHeader('Cache-Control', 'no-store');
  const clientGone = () => tunnel.abort();
  res.once('close', clientGone);
  const decoder = new StringDecoder('utf8');
  let pending = '';
  try {
    for await (const chunk of tunnel.body as AsyncIterable<Buffer>) {
      deadline.touch();
      pending += decoder.write(chunk);
      let cut: number;
      let out = '';
      while ((cut = pending.indexOf('\n')) >= 0) {
        out += relayLine(pending.slice(0, cut), options.listSkipped);
        pending = pending.slice(cut + 1);
      }
      if (Buffer.byteLength(pending) > MAX_LINE_BYTES) throw new DomainError('INTERNAL', 'The device sent an invalid listing (line too long)');
      if (out.length > 0 && !res.write(out)) await deadline.waitOnCaller(drained(res));
      if (res.destroyed) return;
    }
    if (pending.length > 0) throw new DomainError('INTERNAL', 'The device sent an invalid listing (unterminated line)');
  } catch (err) {
    tunnel.abort();
    const error = err instanceof DomainError ? err : deadline.timedOut ? deadline.error() : new DomainError('DEVICE_OFFLINE', 'Device is offline');
    if (!res.destroyed) res.write(`${JSON.stringify({ error: error.message, code: error.code })}\n`);
  } finally {
    res.off('close', clientGone);
  }
  if (!res.destroyed) res.end();
}

/**
 * One device line → one checked output line; throws on anything that is not a clean entry. An
 * entry marked `skipped` goes only to a client that asked for them (FILE_HTTP_HEADERS.listSkipped):
 * another would take it for a file.
 */
function relayLine(line: string, listSkipped: boolean): string {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line);
  } catch {
    throw new DomainError('INTERNAL', 'The device sent an invalid listing (not JSON)');
  }
  if (value !== null && typeof value === 'object' && 'code' in value) throw deviceError(value, 'The device could not list the tree');
  const entry = checkEntry(value);
  return entry.skipped && !listSkipped ? '' : `${JSON.stringify(entry)}\n`;
}

export function checkEntry(value: Record<string, unknown>): ManifestEntry {
  const { path, is_dir, size, mode, mtime, sha256, skipped } = value ?? {};
  const valid =
    typeof is_dir === 'boolean' &&
    Number.isSafeInteger(size) && (size as number) >= 0 &&
    Number.isInteger(mode) && (mode as number) >= 0 && (mode as number) <= MAX_FILE_MODE &&
    Number.isSafeInteger(mtime) &&
    (sha256 === undefined || isSha256(sha256)) &&
    (skipped === undefined || (SKIPPED_FILE_TYPES as readonly unknown[]).includes(skipped));
  try {
    checkRelativePath(path);
  } catch (err) {
    throw new DomainError('INTERNAL', `The device sent an invalid listing entry: ${(err as Error).message}`);
  }
  if (!valid) throw new DomainError('INTERNAL', 'The device sent an invalid listing entry');
  const entry: ManifestEntry = { path: path as string, is_dir: is_dir as boolean, size: size as number, mode: mode as number, mtime: mtime as number };
  if (sha256 !== undefined) entry.sha256 = sha256 as string;
  if (skipped !== undefined) entry.skipped = skipped as SkippedFileType;
  return entry;
}
