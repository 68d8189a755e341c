import { DEPLOYMENT_CHANNEL_LIMITS, DEPLOYMENT_REPORT_INTERVAL_MS, DeploymentStatusReport, DesiredState, encodeChannelLine, LineSplitter } from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import type { RunningOperation } from '../supervisor/operation-registry';
import type { StreamContext, StreamHandler } from '../tunnel/stream-router';
import type { DeploymentEngine } from './deployment-engine';
import type { OperationStream } from '../tunnel/operation-stream';

export interface ChannelTiming {
  /** Reports on job changes are at least this far apart. */
  coalesceMs: number;
  /** A report goes out this often even when nothing changed. */
  heartbeatMs: number;
}

export const DEFAULT_CHANNEL_TIMING: ChannelTiming = { coalesceMs: 500, heartbeatMs: DEPLOYMENT_REPORT_INTERVAL_MS };

/**
 * `POST /v1/deployments`, the deployment channel the server opens after each connect
 * (docs/protocol.md, "Deployments"): desired states in, status reports out, NDJSON both ways.
 * One channel at a time: a second one replaces the first.
 */
export function deploymentChannelHandler(engine: DeploymentEngine, timing: ChannelTiming = DEFAULT_CHANNEL_TIMING): StreamHandler {
  let current: ChannelSession | undefined;
  return async (stream: OperationStream, _args: Record<string, unknown>, context: StreamContext) => {
    // A newer channel comes with a newer tunnel (auto's carrier switch, a reconnect before the old
    // tunnel was seen gone): routine, so a debug line, as the replaced tunnel's close is.
    current?.abort('replaced by a newer channel', 'debug');
    stream.respond({ ':status': 200, 'content-type': 'application/x-ndjson' });
    const session = new ChannelSession(stream, engine, context.log, timing);
    current = session;
    context.operations.add(session);
    await session.done;
    if (current === session) current = undefined;
  };
}

class ChannelSession implements RunningOperation {
  readonly done: Promise<void>;
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private pendingTimer: NodeJS.Timeout | undefined;
  private lastWriteAt = 0;
  private lastSignature = '';
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly stream: OperationStream,
    private readonly engine: DeploymentEngine,
    private readonly log: RuntimeLogger,
    private readonly timing: ChannelTiming,
  ) {
    const lines = new LineSplitter(
      DEPLOYMENT_CHANNEL_LIMITS.maxDesiredLineBytes,
      (line) => this.onLine(line),
      (bytes) => log.warn('deployment channel: line too long, skipped', { bytes }),
    );
    stream.on('data', (chunk: Buffer) => lines.push(chunk));
    stream.on('end', () => lines.end());
    this.unsubscribe = engine.onChange(() => this.scheduleReport());
    this.heartbeat = setInterval(() => this.write(engine.reports()), timing.heartbeatMs);
    this.done = new Promise((resolve) => stream.once('close', resolve)).then(() => this.dispose());
    log.info('deployment channel open');
  }

  abort(reason: string, level: 'info' | 'debug' = 'info'): void {
    this.log[level]('deployment channel closed', { reason });
    if (!this.stream.destroyed) this.stream.end();
    this.stream.close();
  }

  private onLine(line: string): void {
    const desired = parseDesired(line);
    if (desired === undefined) {
      this.log.warn('deployment channel: line skipped (not a desired state)', { bytes: Buffer.byteLength(line) });
      return;
    }
    if (desired === null) return; // another type of message, from a newer server
    this.applying = this.applying.then(async () => {
      const reports = await this.engine.apply(desired).catch((error: Error) => {
        this.log.error('desired state not applied', { revision: desired.revision, error });
        return this.engine.reports();
      });
      this.write(reports);
    });
  }

  /** Job changes: a report when what it says changed, at most one per `coalesceMs`. */
  private scheduleReport(): void {
    if (this.pendingTimer) return;
    const wait = Math.max(0, this.lastWriteAt + this.timing.coalesceMs - Date.now());
    this.pendingTimer = setTimeout(() => {
      this.pendingTimer = undefined;
      const reports = this.engine.reports();
      if (signature(reports) !== this.lastSignature) this.write(reports);
    }, wait);
  }

  private write(reports: DeploymentStatusReport[]): void {
    if (this.stream.destroyed || this.stream.writableEnded) return;
    this.lastWriteAt = Date.now();
    this.lastSignature = signature(reports);
    for (const report of reports) this.stream.write(encodeChannelLine({ type: 'report', report }));
    this.log.debug('deployment reports sent', { reports: reports.map((report) => `${report.deployment_id} ${report.status}`) });
  }

  private dispose(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    clearTimeout(this.pendingTimer);
  }
}

/** What a report says, without its time and log lines: the same signature is not sent again on a change. */
function signature(reports: DeploymentStatusReport[]): string {
  return JSON.stringify(reports.map(({ reported_at: _at, jobs, ...rest }) => ({ ...rest, jobs: jobs.map(({ log_tail: _tail, ...job }) => job) })));
}

/** A desired state; null for a message of another type; undefined for a line that is none of them. */
function parseDesired(line: string): DesiredState | null | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message)) return undefined;
  if (message.type !== 'desired') return null;
  const desired = message.desired;
  if (!isObject(desired) || typeof desired.revision !== 'number' || !Number.isFinite(desired.revision)) return undefined;
  const deployment = desired.deployment;
  if (deployment !== null && !(isObject(deployment) && typeof deployment.id === 'string' && Array.isArray(deployment.jobs))) return undefined;
  return desired as unknown as DesiredState;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
