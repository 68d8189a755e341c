import { ClientHttp2Stream, constants as h2 } from 'node:http2';
import { DeviceOfflineError, encodeStreamArgs, RateLimitedError, resetStream, TUNNEL_HEADERS, tunnelPath } from '@svc/common';
import { deviceRefusal } from '../relay/device-error';
import type { StreamFields, StreamRequest, TunnelSession, TunnelStream } from '../relay/tunnel-carrier';
import type { TunnelLink } from '../relay/tunnel-directory';
import type { PeerConnections } from './peer-connections';
import type { ServerMetrics } from '../common/server-metrics';

/**
 * The holder answers a stream's opening (its own tunnel's answer, or its refusal) within this
 * long, or the peer counts as unreachable (a partition, a stopped process): DEVICE_OFFLINE, and
 * the connection is dropped so the next stream dials afresh.
 */
export const PEER_OPEN_TIMEOUT_MS = 5_000;
import { deviceFields, PEER_HEADERS } from './peer-protocol';

/**
 * A device's tunnel as seen through the replica that holds it: each stream is one HTTP/2 request
 * on that replica's peer listener, which opens the same stream on the tunnel and splices the two.
 * HTTP/2 flow control on both hops keeps backpressure end to end. Made per operation from the
 * directory's current entry; it has no lifetime of its own (close is a no-op).
 */
export class PeerTunnelSession implements TunnelSession {
  readonly runtime = { version: 'via a peer replica', boot_id: '' };

  constructor(
    readonly deviceId: string,
    readonly carrier: TunnelLink['carrier'],
    /** PEER_ADDRESS:PEER_PORT of the holding replica. */
    readonly remoteAddress: string,
    private readonly connections: PeerConnections,
    private readonly metrics: ServerMetrics,
  ) {}

  /** Counts the hop by outcome and times the holder's answer. */
  async openStream(request: StreamRequest): Promise<TunnelStream> {
    const stopTimer = this.metrics.peerHopOpen.startTimer();
    try {
      const stream = await this.open(request);
      this.metrics.peerHops.inc({ outcome: 'opened' });
      return stream;
    } catch (err) {
      this.metrics.peerHops.inc({ outcome: err instanceof DeviceOfflineError ? 'offline' : 'refused' });
      throw err;
    } finally {
      stopTimer();
    }
  }

  private async open(request: StreamRequest): Promise<TunnelStream> {
    let stream: ClientHttp2Stream;
    try {
      const session = await this.connections.session(this.remoteAddress);
      stream = session.request(
        {
          [h2.HTTP2_HEADER_METHOD]: 'POST',
          [h2.HTTP2_HEADER_PATH]: tunnelPath(request.op),
          [PEER_HEADERS.device]: this.deviceId,
          [TUNNEL_HEADERS.args]: encodeStreamArgs(request.args),
          [TUNNEL_HEADERS.requestId]: request.requestId,
          [TUNNEL_HEADERS.actor]: request.actor,
          ...(request.trailers ? { [PEER_HEADERS.trailers]: '1' } : {}),
        },
        { waitForTrailers: request.trailers === true },
      );
    } catch {
      throw new DeviceOfflineError();
    }
    const trailers = new Promise<StreamFields>((resolve) => {
      stream.once('trailers', (fields: StreamFields) => resolve(deviceFields(fields)));
      stream.once('close', () => resolve({}));
    });
    const headers = await responseHeaders(stream, () => {
      resetStream(stream);
      this.connections.drop(this.remoteAddress);
    });
    const status = Number(headers[h2.HTTP2_HEADER_STATUS]);
    const holderRefusal = headers[PEER_HEADERS.refusal];
    // A refused stream has no reader any more: an error it emits later (PeerConnections.close()
    // destroys the connection with one at shutdown) must not go unhandled and end the process.
    if (holderRefusal !== undefined || status !== 200) stream.on('error', () => undefined);
    if (holderRefusal === 'DEVICE_OFFLINE') {
      resetStream(stream);
      throw new DeviceOfflineError();
    }
    if (status !== 200) {
      const refusal = await deviceRefusal(stream, status, (readToEnd) => (readToEnd ? stream.end() : resetStream(stream)));
      // The holder's tunnel refused a new stream: its own word, which a device's refusal cannot claim.
      throw holderRefusal === 'RATE_LIMITED' ? new RateLimitedError(refusal.message) : refusal;
    }
    return {
      body: stream,
      headers: deviceFields(headers),
      trailers,
      endWithTrailers: (fields) => {
        stream.once('wantTrailers', () => stream.sendTrailers(fields));
        stream.end();
      },
      abort: () => resetStream(stream),
    };
  }

  async close(): Promise<void> {}

  onClosed(): void {}
}

/** The holder's response headers; a stream that fails, closes or times out first means the hop is gone. */
function responseHeaders(stream: ClientHttp2Stream, timedOut: () => void): Promise<StreamFields> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle(() => {
      timedOut();
      reject(new DeviceOfflineError());
    }), PEER_OPEN_TIMEOUT_MS);
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      stream.off('response', onResponse);
      stream.off('error', onGone);
      stream.off('close', onGone);
      outcome();
    };
    const onResponse = (fields: StreamFields) => settle(() => resolve(fields));
    const onGone = () => settle(() => reject(new DeviceOfflineError()));
    stream.once('response', onResponse);
    stream.once('error', onGone);
    stream.once('close', onGone);
  });
}
