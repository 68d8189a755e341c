import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable, Writable } from 'node:stream';
import type { Request, Response } from 'express';
import { FILE_TUNNEL_HEADERS } from '@svc/common';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { relayDownload, writePerTurn } from './file-relay';
import { StallDeadline } from './stall-deadline';

const SHA256 = 'a'.repeat(64);

/** A device's fs/read answer: `size` bytes in 16 KiB pieces (as HTTP/2 DATA frames come), then the checksum trailer. */
function deviceAnswer(size: number): TunnelStream {
  let sent = 0;
  const body = new Readable({
    read() {
      const n = Math.min(16 * 1024, size - sent);
      sent += n;
      this.push(n === 0 ? null : Buffer.alloc(n, 1));
    },
  });
  return {
    body: body as unknown as TunnelStream['body'],
    headers: { [FILE_TUNNEL_HEADERS.size]: String(size) },
    trailers: Promise.resolve({ [FILE_TUNNEL_HEADERS.sha256]: SHA256 }),
    endWithTrailers: () => undefined,
    abort: () => body.destroy(),
  };
}

/** Downloads through relayDownload as a reader that writes slowly (a disk, a slow link): what arrived, and the trailers. */
async function slowDownload(size: number): Promise<{ bytes: number; trailers: NodeJS.Dict<string> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void relayDownload(deviceAnswer(size), req as Request, res as unknown as Response, new StallDeadline('dev', 60_000));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port, headers: { te: 'trailers' } }, (res) => {
        let bytes = 0;
        const disk = new Writable({
          highWaterMark: 64 * 1024,
          write(chunk: Buffer, _encoding, callback) {
            bytes += chunk.length;
            setTimeout(callback, 1);
          },
        });
        res.pipe(disk);
        disk.on('finish', () => resolve({ bytes, trailers: res.trailers }));
        res.on('error', reject);
      }).on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('relayDownload', () => {
  // On Node 24 a corked HTTP/1 response stopped emitting 'drain' to a slow reader (the download
  // stalled until the stall deadline cancelled it) and, ended while corked, put its last chunk after
  // the terminating one. Node 20 showed neither.
  it('hands a slow reader every byte of a large file, then the checksum trailer', async () => {
    const size = 24 * 1024 * 1024 + 17;
    await expect(slowDownload(size)).resolves.toEqual({ bytes: size, trailers: { 'x-svc-sha256': SHA256 } });
  }, 60_000);
});

describe('writePerTurn', () => {
  it('writes what the device delivered within one event-loop turn as one chunk of the response, bytes and order unchanged', async () => {
    const from = new PassThrough();
    const writes: Buffer[] = [];
    const to = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        writes.push(chunk);
        callback();
      },
    });
    writePerTurn(from, to);
    // Two TLS records' worth as HTTP/2 hands them over: each DATA frame straddles a record.
    const pieces = [16375, 9, 16375, 9].map((length, i) => Buffer.alloc(length, i));
    for (const piece of pieces) from.write(piece);
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toEqual(Buffer.concat(pieces));
    from.end(Buffer.from('last'));
    await new Promise((resolve) => from.once('end', resolve));
    expect(Buffer.concat(writes.slice(1)).toString()).toBe('last'); // written as the source ends
    expect(to.writableEnded).toBe(false); // ending the response is the caller's
  });
});
