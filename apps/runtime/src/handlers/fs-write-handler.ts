import { stat } from 'node:fs/promises';
import { constants as http2Constants, IncomingHttpHeaders } from 'node:http2';
import { join } from 'node:path';
import { DomainError, FILE_TUNNEL_HEADERS, FsWriteOutcome, openFileWriter, resetStream, TempFileJournal } from '@svc/common';
import type { StreamContext, StreamHandler } from '../tunnel/stream-router';
import { parseWriteArgs } from './fs-args';
import { writeAnswer } from './answer-writer';
import { requestBody, tracked, watchAbort } from './fs-stream';
import { UPLOAD_STALL_MS } from './fs-temp-sweeper';
import type { OperationStream } from '../tunnel/operation-stream';

/**
 * `/v1/fs/write {path, size, mode?, mtime?, sha256?, name?, within?}`: everything that can be
 * refused before data flows is (bad arguments, a directory at the path, no permission, no parent
 * creatable); then `:status 200`, the request body is written to a temp file next to the target
 * (parents created as `mkdir -p`), checked against `size` and `sha256` (from the arguments, or
 * else the request's `svc-sha256` trailer), and renamed over the target. The answer body is one
 * JSON object, `{path, size, sha256}` or `{code, message}`; a failure answered before the data
 * ended is followed by RST_STREAM NO_ERROR so that the sender stops. A reset stream leaves no
 * temp file behind; temp files a crash left are swept (fs-temp-sweeper.ts). The destination rule
 * is openFileWriter's: a link is written through to its target, a device or FIFO in place.
 */
export function fsWriteHandler(tempFiles: TempFileJournal): StreamHandler {
  return (stream, rawArgs, context) => handleFsWrite(stream, rawArgs, context, tempFiles);
}

async function handleFsWrite(stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext, tempFiles: TempFileJournal): Promise<void> {
  const args = parseWriteArgs(rawArgs);
  const target = args.name !== undefined && (await isDirectory(args.path)) ? join(args.path, args.name) : args.path;
  let trailerSha256: string | undefined;
  stream.once('trailers', (trailers: IncomingHttpHeaders) => {
    const value = trailers[FILE_TUNNEL_HEADERS.sha256];
    trailerSha256 = typeof value === 'string' ? value : undefined;
  });
  const writer = await openFileWriter(target, { mode: args.mode, mtime: args.mtime, within: args.within, tempFiles });
  const aborted = watchAbort(stream);
  try {
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
  } catch (err) {
    await writer.discard();
    throw err;
  }
  // Data that stops flowing for good would hold the temp file open forever: the upload is cancelled.
  const stall = setTimeout(() => resetStream(stream), UPLOAD_STALL_MS);
  stream.on('data', () => stall.refresh());
  stream.once('end', () => clearTimeout(stall)).once('close', () => clearTimeout(stall));
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
    await writeAnswer(stream, JSON.stringify(outcome));
    if (endedEarly && !stream.destroyed) stream.close(http2Constants.NGHTTP2_NO_ERROR);
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
