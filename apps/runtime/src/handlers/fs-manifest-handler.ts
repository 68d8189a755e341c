import { compileExcludes, DomainError, ManifestEntry, walkTree } from '@svc/common';
import type { StreamContext } from '../tunnel/stream-router';
import { parseManifestArgs } from './fs-args';
import { tracked, watchAbort } from './fs-stream';
import type { OperationStream } from '../tunnel/operation-stream';

/** Lines are sent in chunks of about this size rather than one DATA frame each. */
const CHUNK_BYTES = 64 * 1024;

/**
 * `/v1/fs/manifest {path, exclude?, hash?}`: the tree under `path` for sync, as NDJSON, one
 * ManifestEntry per line, sent as the walk goes (a slow reader pauses the walk through HTTP/2
 * flow control). A root that is missing or not a directory is refused with the usual status; a
 * failure later in the walk (an unreadable subdirectory) ends the body with a `{code, message}`
 * line instead of an entry.
 */
export async function handleFsManifest(stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext): Promise<void> {
  const args = parseManifestArgs(rawArgs);
  const entries = walkTree(args.path, { exclude: compileExcludes(args.exclude), hash: args.hash });
  const first = await entries.next();
  const aborted = watchAbort(stream);
  stream.respond({ ':status': 200, 'content-type': 'application/x-ndjson' });
  await tracked(stream, context, async () => {
    let chunk = '';
    const flush = async () => {
      if (chunk.length === 0 || stream.destroyed) return;
      const writable = stream.write(chunk);
      chunk = '';
      if (!writable) await drained(stream);
    };
    try {
      for (let next = first; !next.done; next = await entries.next()) {
        if (aborted() || stream.destroyed) return;
        chunk += `${JSON.stringify(next.value satisfies ManifestEntry)}\n`;
        if (chunk.length >= CHUNK_BYTES) await flush();
      }
    } catch (err) {
      const error = err instanceof DomainError ? err : new DomainError('INTERNAL', 'The runtime failed to list the tree');
      chunk += `${JSON.stringify({ code: error.code, message: error.message })}\n`;
    } finally {
      await entries.return(undefined);
    }
    await flush();
    if (!stream.destroyed) stream.end();
  });
}

function drained(stream: OperationStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done);
      resolve();
    };
    stream.on('drain', done).on('close', done);
  });
}
