import type { Readable, Writable } from 'node:stream';
import type { Request, Response } from 'express';
import { coalesceWrites, DeviceOfflineError, DomainError, FILE_HTTP_HEADERS, FILE_TUNNEL_HEADERS, FsWriteOutcome, isSha256, relay } from '@svc/common';
import { deviceError } from '../relay/device-error';
import type { TunnelStream } from '../relay/tunnel-carrier';
import type { StallDeadline } from './stall-deadline';

/** A device's small JSON answer (write outcome, delete count) larger than this is refused, not buffered. Listings are relayed, never buffered (listing-relay.ts). */
const MAX_JSON_ANSWER_BYTES = 64 * 1024;

/** Reads a device's whole (small) JSON answer; a broken stream means the device went away, a silent one hits the deadline. */
export async function readJsonAnswer(tunnel: TunnelStream, deadline: StallDeadline): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of tunnel.body as AsyncIterable<Buffer>) {
      deadline.touch();
      size += chunk.length;
      if (size > MAX_JSON_ANSWER_BYTES) {
        tunnel.abort();
        throw new DomainError('INTERNAL', 'The device answered with more data than expected');
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw deadline.timedOut ? deadline.error() : new DeviceOfflineError();
  }
  if (deadline.timedOut) throw deadline.error();
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new DeviceOfflineError();
  }
}

/**
 * Streams an upload (the HTTP request body) into an `fs/write` stream and returns the device's
 * outcome. The body is relayed (`relay`: piped with a deeper buffer, so a turn's reads leave as
 * one batch of DATA frames), so a slow device slows the client through TCP and HTTP/2 flow
 * control; nothing is buffered beyond the windows and SPLICE_BUFFER_BYTES. The checksum goes
 * along as the `svc-sha256` trailer when the client sent it as an HTTP trailer. A device that answers before the upload
 * ended (a failure) stops the piping; a client that leaves cancels the stream.
 */
export async function relayUpload(tunnel: TunnelStream, req: Request, checksumInTrailer: boolean, deadline: StallDeadline): Promise<{ path: string; size: number; sha256: string }> {
  const body = tunnel.body;
  const touch = () => deadline.touch();
  req.on('data', touch);
  let uploaded = false;
  const onClientGone = () => {
    if (!uploaded) tunnel.abort();
  };
  req.once('close', onClientGone);
  if (req.destroyed) onClientGone(); // left while the device was being reached
  req.once('end', () => {
    uploaded = true;
    const sha256 = req.trailers[FILE_HTTP_HEADERS.sha256];
    if (checksumInTrailer) tunnel.endWithTrailers(typeof sha256 === 'string' ? { [FILE_TUNNEL_HEADERS.sha256]: sha256 } : {});
    else body.end();
  });
  coalesceWrites(req, body);
  const unpipe = relay(req, body, { end: false });
  try {
    const outcome = (await readJsonAnswer(tunnel, deadline)) as FsWriteOutcome;
    if ('code' in outcome) throw deviceError(outcome, 'The device could not write the file');
    if (typeof outcome.path !== 'string' || !Number.isSafeInteger(outcome.size) || !isSha256(outcome.sha256)) {
      throw new DomainError('INTERNAL', 'The device answered the write with an invalid outcome');
    }
    return outcome;
  } finally {
    unpipe();
    req.off('close', onClientGone);
    req.off('data', touch);
  }
}

/**
 * Streams an `fs/read` stream to the HTTP response. The checksum arrives after the bytes: a
 * client that accepts trailers (`TE: trailers`) gets it as the `x-svc-sha256` trailer (and a
 * chunked body), any other gets `Content-Length` and no checksum. A stream that breaks, or ends
 * without its checksum, destroys the response, so the client sees an incomplete transfer rather
 * than a short file.
 */
export async function relayDownload(tunnel: TunnelStream, req: Request, res: Response, deadline: StallDeadline): Promise<void> {
  const withTrailer = /(^|,)\s*trailers\s*(;|,|$)/i.test(String(req.headers.te ?? ''));
  if (withTrailer) res.setHeader('Trailer', FILE_HTTP_HEADERS.sha256);
  else {
    // A device that announces no plain decimal size gets a chunked answer, never a made-up length.
    const size = tunnel.headers[FILE_TUNNEL_HEADERS.size];
    if (typeof size === 'string' && /^\d{1,16}$/.test(size)) res.setHeader('Content-Length', size);
  }
  const body = tunnel.body;
  body.on('data', () => deadline.touch());
  // The pipe pauses the device's stream while the caller does not read: the caller's pace, not a stall.
  body.on('pause', () => deadline.holdForCaller());
  body.on('resume', () => deadline.releaseForCaller());
  const delivered = await new Promise<boolean>((resolve) => {
    body.once('end', () => resolve(true));
    body.once('error', () => resolve(false));
    body.once('close', () => resolve(body.readableEnded));
    res.once('close', () => resolve(res.writableFinished));
    // Never corked (coalesceWrites): on Node 24 an HTTP/1 response that is corked stops emitting
    // 'drain' to a slow reader (the download stalled for good) and, ended while corked, sends its
    // last chunk after the terminating one (the reader lost the last batch).
    writePerTurn(body, res);
  });
  const sha256 = delivered ? (await tunnel.trailers)[FILE_TUNNEL_HEADERS.sha256] : undefined;
  if (deadline.timedOut && !res.headersSent) {
    // Not a byte came: the caller can still be told why, with a status of its own.
    res.removeHeader('Trailer');
    res.removeHeader('Content-Length');
    throw deadline.error();
  }
  if (!isSha256(sha256) || res.destroyed) {
    tunnel.abort();
    res.destroy();
    return;
  }
  if (withTrailer) res.addTrailers({ [FILE_HTTP_HEADERS.sha256]: sha256 });
  res.end();
}

/**
 * Pipes `from` into an HTTP/1 response (never ending it) with one write per event-loop turn: the
 * chunks a turn delivered are joined first. The device's data arrives as two chunks per 16 KiB
 * TLS record (a DATA frame straddles records), and piped one by one each became an HTTP chunk of
 * its own at the client (some of 9 bytes), to be parsed and passed through its streams one by
 * one. Backpressure as `pipe`: `from` pauses while the response is full, until 'drain'. What is
 * pending when `from` ends is written at once, so it precedes whatever ends the response.
 */
export function writePerTurn(from: Readable, to: Writable): void {
  let batch: Buffer[] = [];
  let scheduled = false;
  let paused = false;
  const resume = () => {
    paused = false;
    from.resume();
  };
  const flush = () => {
    scheduled = false;
    const chunks = batch;
    batch = [];
    if (chunks.length === 0 || to.destroyed || to.writableEnded) return;
    if (!to.write(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) && !paused) {
      paused = true;
      from.pause();
      to.once('drain', resume);
    }
  };
  from.on('data', (chunk: Buffer) => {
    batch.push(chunk);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  from.once('end', flush);
  from.resume();
}
