import { constants } from 'node:fs';
import { FileHandle, open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestTap, FILE_IO_CHUNK_BYTES, FILE_TUNNEL_HEADERS, fileSystemError, followLinks, formatModeHeader, metadataOf, notARegularFile, requireInside, specialType } from '@svc/common';
import type { StreamContext } from '../tunnel/stream-router';
import { parseReadArgs } from './fs-args';
import { tracked, watchAbort } from './fs-stream';
import type { OperationStream } from '../tunnel/operation-stream';

/**
 * `/v1/fs/read {path, within?}`: answers `:status 200` with `svc-size`, `svc-mode` (octal) and
 * `svc-mtime` headers, then exactly `svc-size` bytes as HTTP/2 flow control lets them through,
 * then the `svc-sha256` trailer of the bytes sent. A file that shrinks while it is read resets
 * the stream instead of ending it short (the reader then has no checksum and fails).
 * Only regular files are read: a FIFO or device is refused before it is opened (opening a FIFO,
 * or reading one, would hold one of libuv's four pool threads until a writer came, and four such
 * reads would freeze every file operation), and the open itself cannot block (O_NONBLOCK) in case
 * the path was swapped for a FIFO in between. With `within`, the file a final link leads to must
 * be inside too.
 */
export async function handleFsRead(stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext): Promise<void> {
  const args = parseReadArgs(rawArgs);
  if (args.within !== undefined) {
    await requireInside(args.within, args.path);
    await requireInside(args.within, await followLinks(args.path));
  }
  let handle: FileHandle;
  try {
    await requireRegularFile(args.path);
    handle = await open(args.path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw fileSystemError(err, args.path);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!info.isFile()) throw notARegularFile(args.path, specialType(info));
    const { size, mode, mtime } = metadataOf(info);
    const tap = new DigestTap(size);
    stream.respond(
      { ':status': 200, 'content-type': 'application/octet-stream', [FILE_TUNNEL_HEADERS.size]: String(size), [FILE_TUNNEL_HEADERS.mode]: formatModeHeader(mode), [FILE_TUNNEL_HEADERS.mtime]: String(mtime) },
      { waitForTrailers: true },
    );
    stream.once('wantTrailers', () => stream.sendTrailers({ [FILE_TUNNEL_HEADERS.sha256]: tap.digest() }));
    const aborted = watchAbort(stream);
    const source = size === 0 ? Readable.from([]) : handle.createReadStream({ start: 0, end: size - 1, highWaterMark: FILE_IO_CHUNK_BYTES });
    await tracked(stream, context, async () => {
      try {
        await pipeline(source, tap, stream);
      } catch (err) {
        if (aborted()) context.log.info('file read cancelled', { path: args.path });
        else throw fileSystemError(err, args.path);
      }
    });
  } catch (err) {
    throw fileSystemError(err, args.path);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function requireRegularFile(path: string): Promise<void> {
  const info = await stat(path);
  if (!info.isFile() && !info.isDirectory()) throw notARegularFile(path, specialType(info));
}
