import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { TUNNEL_OPS } from '@svc/common';
import type { ServerMetrics, StreamRoute } from '../common/server-metrics';
import type { StreamRequest, TunnelCloseOptions, TunnelSession, TunnelStream } from './tunnel-carrier';

/**
 * A session whose streams are counted (by operation and route), whose bytes are counted both ways
 * as they pass, and whose exec streams are timed until they end. Counting taps the stream's own
 * `push` and `write`, so it reads nothing itself and flow control is untouched.
 */
export class MeteredSession implements TunnelSession {
  constructor(
    private readonly session: TunnelSession,
    private readonly route: StreamRoute,
    private readonly metrics: ServerMetrics,
  ) {}

  get deviceId(): string {
    return this.session.deviceId;
  }

  get carrier(): TunnelSession['carrier'] {
    return this.session.carrier;
  }

  get runtime(): TunnelSession['runtime'] {
    return this.session.runtime;
  }

  get remoteAddress(): string {
    return this.session.remoteAddress;
  }

  async openStream(request: StreamRequest): Promise<TunnelStream> {
    const startedAt = performance.now();
    const stream = await this.session.openStream(request);
    this.metrics.streams.inc({ op: request.op, route: this.route });
    countBytes(stream.body, this.metrics, this.route);
    if (request.op === TUNNEL_OPS.exec) {
      stream.body.once('close', () => this.metrics.execDuration.observe({ route: this.route }, (performance.now() - startedAt) / 1000));
    }
    return stream;
  }

  close(reason: string, options?: TunnelCloseOptions): Promise<void> {
    return this.session.close(reason, options);
  }

  onClosed(listener: (reason: string) => void): void {
    this.session.onClosed(listener);
  }
}

function countBytes(body: Duplex, metrics: ServerMetrics, route: StreamRoute): void {
  const fromDevice = metrics.bytes.labels({ direction: 'from_device', route });
  const toDevice = metrics.bytes.labels({ direction: 'to_device', route });
  const push = body.push.bind(body);
  body.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null && chunk !== undefined) fromDevice.inc(byteLength(chunk));
    return push(chunk, encoding);
  };
  const write = body.write.bind(body) as (...args: unknown[]) => boolean;
  body.write = ((chunk: unknown, ...rest: unknown[]) => {
    toDevice.inc(byteLength(chunk));
    return write(chunk, ...rest);
  }) as Duplex['write'];
  const end = body.end.bind(body) as (...args: unknown[]) => Duplex;
  body.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') toDevice.inc(byteLength(chunk));
    return end(chunk, ...rest);
  }) as Duplex['end'];
}

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}
