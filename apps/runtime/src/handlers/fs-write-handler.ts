import { stat } from 'node:fs/promises';
import { constants as http2Constants, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { join } from 'node:path';
import { AtomicFileWriter, DomainError, FILE_TUNNEL_HEADERS, FsWriteOutcome, requireInside } from '@svc/common';
import type { StreamContext } from '../tunnel/stream-router';
import { parseWriteArgs } from './fs-args';
import { requestBody, tracked, watchAbort } from './fs-stream';

/**
 * `/v1/fs/write {path, size, mode?, mtime?, sha256?, name?, within?}`: everything that can be
 * refused before data flows is (bad arguments, a directory at the path, no permission, no parent
 * creatable); then `:status 200`, the request body is written to a temp file next to the target
 * (parents created as `mkdir -p`), checked against `size` and `sha256` (from the arguments, or
 * else the request's `svc-sha256` trailer), and renamed over the target. The answer body is one
 * JSON object, `{path, size, sha256}` or `{code, message}`; a failure answered before the data
 * ended is followed by RST_STREAM NO_ERROR so that the sender stops. A reset stream leaves no
 * temp file behind.
 */
export async function handleFsWrite(stream: ServerHttp2Stream, rawArgs: Record<string, unknown>, context: StreamContext): Promise<void> {
  const args = parseWriteArgs(rawArgs);
  const target = args.name !== undefined && (await isDirectory(args.path)) ? join(args.path, args.name) : args.path;
  if (args.within !== undefined) await requireInside(args.within, target);
  let trailerSha256: string | undefined;
  stream.once('trailers', (trailers: IncomingHttpHeaders) => {
    const value = trailers[FILE_TUNNEL_HEADERS.sha256];
    trailerSha256 = typeof value === 'string' ? value : undefined;
  });
  const writer = await AtomicFileWriter.open(target, { mode: args.mode, mtime: args.mtime });
  const aborted = watchAbort(stream);
  try {
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
  } catch (err) {
    await writer.discard();
    throw err;
  }
  await tracked(stream, context, async () => {
    let outcome: FsWriteOutcome;
    try {
      const written = await writer.write(requestBody(stream), { size: args.size, expectedSha256: () => args.sha256 ?? trailerSha256 });
      outcome = { path: target, ...written };
      context.log.info('file written', { path: target, size: written.size });
    } catch (err) {
      if (aborted() || stream.destroyed) {
        context.log.info('file write aborted', { path: target });
        return;
      }
      const error = err instanceof DomainError ? err : new DomainError('INTERNAL', 'The runtime failed to write the file');
      outcome = { code: error.code, message: error.message };
      context.log.info('file write failed', { path: target, code: error.code });
    }
    const endedEarly = !stream.readableEnded;
    stream.end(JSON.stringify(outcome), () => {
      if (endedEarly && !stream.destroyed) stream.close(http2Constants.NGHTTP2_NO_ERROR);
    });
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
