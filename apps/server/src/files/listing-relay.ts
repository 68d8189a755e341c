import type { Response } from 'express';
import { DeviceOfflineError, DomainError, FILE_LIMITS } from '@svc/common';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { drained } from './drained';
import type { StallDeadline } from './stall-deadline';

/**
 * Relays an `fs/ls` answer (one JSON array) to the HTTP response as it arrives, without parsing
 * or re-encoding it: a listing of hundreds of thousands of entries costs the server neither
 * memory nor event-loop time beyond the flow-control windows, so one user's big directory does
 * not slow anyone else's requests. The client parses and checks it. The status waits for the
 * device's first bytes, so a device that fails or stays silent before then still gets a proper
 * error answer (DEVICE_OFFLINE, TIMEOUT). A listing longer than FILE_LIMITS.maxListingBytes (a
 * device not keeping to the protocol: the runtime refuses such directories itself) or a stream
 * broken midway cuts the response, which the client reports as a broken listing.
 */
export async function relayListing(tunnel: TunnelStream, res: Response, deadline: StallDeadline): Promise<void> {
  const clientGone = () => tunnel.abort();
  res.once('close', clientGone);
  let relayed = 0;
  try {
    for await (const chunk of tunnel.body as AsyncIterable<Buffer>) {
      deadline.touch();
      relayed += chunk.length;
      if (relayed > FILE_LIMITS.maxListingBytes) throw new DomainError('INTERNAL', `The device sent a listing larger than ${FILE_LIMITS.maxListingBytes} bytes`);
      if (!res.headersSent) res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
      if (!res.write(chunk)) await deadline.waitOnCaller(drained(res));
      if (res.destroyed) return;
    }
    if (relayed === 0) throw new DomainError('INTERNAL', 'The device answered the listing with nothing');
  } catch (err) {
    tunnel.abort();
    const error = err instanceof DomainError ? err : deadline.timedOut ? deadline.error() : new DeviceOfflineError();
    if (!res.headersSent) throw error;
    res.destroy();
    return;
  } finally {
    res.off('close', clientGone);
  }
  res.end();
}
