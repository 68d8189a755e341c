import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import {
  DEPLOYMENT_CHANNEL_LIMITS,
  DeploymentStatusReport,
  DesiredState,
  DomainError,
  encodeChannelLine,
  LineSplitter,
  TUNNEL_OPS,
} from '@svc/common';
import type { TunnelSession, TunnelStream } from '../relay/tunnel-carrier';
import { checkReport } from './report-schema';

/** Reports on more deployments than this waiting to be stored: further ones are dropped. */
const MAX_PENDING_REPORTS = 16;
/** Stored reports of one device are at least this far apart; a burst keeps each deployment's newest. */
const REPORT_SPACING_MS = 200;
/**
 * A report that says what the last stored one said (its time and log tails aside) is stored again
 * only this long after it: runtimes repeat their state every minute, and a week of that per device
 * would be most of the database. Well below a day, so a steady deployment's report never expires.
 */
export const REPORT_REFRESH_MS = 30 * 60 * 1000;
/** Reopening a channel the runtime ended while its tunnel stays up: first wait, doubled up to the last. */
const REOPEN_DELAYS_MS = [1_000, 5_000, 15_000, 60_000];
/** One warning about dropped lines per this interval per channel, with a count. */
const WARN_INTERVAL_MS = 10_000;

/** What a channel needs from the server. */
export interface ChannelHost {
  desiredState(deviceId: string): Promise<DesiredState>;
  /** Stores a report (false: dropped, e.g. on a deployment the device does not have) and follows a rollback it reports. */
  storeReport(deviceId: string, report: DeploymentStatusReport): Promise<boolean>;
  /** Puts a repeat that brings new log tails in place of the newest stored report on its deployment (false: none stored). */
  refreshReport(deviceId: string, report: DeploymentStatusReport): Promise<boolean>;
  /** Every checked report, before reports saying nothing new are coalesced away: how fresh a status is. */
  heard(deviceId: string, report: DeploymentStatusReport): void;
  /** The runtime does not know the deployment channel (an older runtime). */
  unsupported(deviceId: string): void;
  readonly logger: Logger;
}

/**
 * The deployment channel of one tunnel session (docs/protocol.md, "Deployments"): one long-lived
 * `POST /v1/deployments` stream. The server writes the desired state as NDJSON, at once and after
 * every change (each line a newer revision than the last); the runtime writes status reports,
 * which are checked, coalesced per deployment and stored. Ends with the session.
 */
export class DeploymentChannel {
  private stream: TunnelStream | null = null;
  private ended = false;
  private signalEnd!: () => void;
  private readonly endedPromise = new Promise<void>((resolve) => (this.signalEnd = resolve));
  /** Revision of the last desired state written on this channel; -1 before the first. */
  sentRevision = -1;
  private sending: Promise<void> | null = null;
  private resend = false;
  private readonly pending = new Map<string, DeploymentStatusReport>();
  /** Per deployment: what the last stored report said, its log tails, and when it was stored. */
  private readonly stored = new Map<string, { said: string; tails: string; at: number }>();
  private storing = false;
  private dropped = 0;
  private lastWarning = 0;

  constructor(
    private readonly session: TunnelSession,
    private readonly host: ChannelHost,
  ) {
    session.onClosed(() => this.end());
  }

  get deviceId(): string {
    return this.session.deviceId;
  }

  /** Opens the stream and keeps it open (reopening after a clean end) until the session closes. */
  async run(): Promise<void> {
    for (let attempt = 0; !this.ended; attempt++) {
      try {
        this.stream = await this.session.openStream({ op: TUNNEL_OPS.deployments, args: {}, requestId: randomUUID(), actor: 'svc-server' });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'NOT_FOUND') {
          this.host.unsupported(this.deviceId);
          return;
        }
        if (err instanceof DomainError && err.code === 'DEVICE_OFFLINE') return;
        this.host.logger.warn(`deployment channel of ${this.deviceId} refused: ${(err as Error).message}`);
        if (!(await this.pause(attempt))) return;
        continue;
      }
      if (this.ended) {
        this.stream.abort();
        return;
      }
      this.sentRevision = -1;
      this.refresh();
      await this.readReports(this.stream);
      this.stream = null;
      if (!(await this.pause(attempt))) return;
    }
  }

  /** Sends the desired state if it is newer than what this channel sent; calls made while sending coalesce. */
  refresh(): void {
    if (this.sending) {
      this.resend = true;
      return;
    }
    this.sending = this.sendLatest().finally(() => {
      this.sending = null;
      if (this.resend) {
        this.resend = false;
        this.refresh();
      }
    });
  }

  end(): void {
    this.ended = true;
    this.signalEnd();
    this.stream?.abort();
  }

  private async sendLatest(): Promise<void> {
    const stream = this.stream;
    if (!stream || this.ended) return;
    try {
      const desired = await this.host.desiredState(this.deviceId);
      if (desired.revision <= this.sentRevision || stream !== this.stream) return;
      this.sentRevision = desired.revision;
      // The runtime reports afresh after each desired state: those reports are stored whatever they say.
      this.stored.clear();
      if (!stream.body.write(encodeChannelLine({ type: 'desired', desired }))) await drained(stream);
    } catch (err) {
      this.host.logger.error(`could not send the desired state to ${this.deviceId}: ${(err as Error).message}`);
    }
  }

  /** Reads report lines until the stream ends or breaks. */
  private async readReports(stream: TunnelStream): Promise<void> {
    const lines = new LineSplitter(
      DEPLOYMENT_CHANNEL_LIMITS.maxReportLineBytes,
      (line) => this.onLine(line),
      (bytes) => this.drop(`a line of ${bytes} bytes (limit ${DEPLOYMENT_CHANNEL_LIMITS.maxReportLineBytes})`),
    );
    try {
      for await (const chunk of stream.body as AsyncIterable<Buffer>) lines.push(chunk);
      lines.end();
    } catch {
      // A broken stream: the session is gone, or the runtime reset it (then it is reopened).
    }
  }

  private onLine(line: string): void {
    let message: { type?: unknown; report?: unknown };
    try {
      message = JSON.parse(line);
    } catch {
      this.drop('a line that is not JSON');
      return;
    }
    if (message === null || typeof message !== 'object' || message.type !== 'report') return; // other types: a newer runtime's, skipped
    const checked = checkReport(message.report);
    if ('problem' in checked) {
      this.drop(`a report (${checked.problem})`);
      return;
    }
    const { report } = checked;
    this.host.heard(this.deviceId, report);
    if (!this.pending.has(report.deployment_id) && this.pending.size >= MAX_PENDING_REPORTS) {
      this.drop('a report on too many deployments at once');
      return;
    }
    this.pending.delete(report.deployment_id);
    this.pending.set(report.deployment_id, report);
    if (!this.storing) void this.storePending();
  }

  /**
   * Stores waiting reports one at a time, oldest deployment first, spaced REPORT_SPACING_MS. A
   * repeat is not stored again, but one with new log tails (a job's output after its last change,
   * which the runtime sends with its next minutely repeat) replaces the stored report in place, or
   * is stored afresh when none is stored any more (expired, pruned, storage reset).
   */
  private async storePending(): Promise<void> {
    this.storing = true;
    try {
      for (const [deploymentId, report] of this.pending) {
        this.pending.delete(deploymentId);
        const said = substance(report);
        const tails = logTails(report);
        const last = this.stored.get(deploymentId);
        const repeat = last !== undefined && last.said === said && Date.now() - last.at < REPORT_REFRESH_MS;
        if (repeat && last.tails === tails) continue;
        try {
          if (repeat && (await this.host.refreshReport(this.deviceId, report))) last.tails = tails;
          else if (await this.host.storeReport(this.deviceId, report)) this.stored.set(deploymentId, { said, tails, at: Date.now() });
        } catch (err) {
          this.host.logger.error(`could not store a report of ${this.deviceId}: ${(err as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, REPORT_SPACING_MS));
      }
    } finally {
      this.storing = false;
    }
  }

  private drop(what: string): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.lastWarning < WARN_INTERVAL_MS) return;
    this.host.logger.warn(`deployment channel of ${this.deviceId}: dropped ${what}${this.dropped > 1 ? ` (${this.dropped} lines dropped since the last warning)` : ''}`);
    this.lastWarning = now;
    this.dropped = 0;
  }

  /** Waits before reopening; false when the session ended meanwhile. */
  private async pause(attempt: number): Promise<boolean> {
    const delay = REOPEN_DELAYS_MS[Math.min(attempt, REOPEN_DELAYS_MS.length - 1)];
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, delay))), this.endedPromise]);
    clearTimeout(timer);
    return !this.ended;
  }
}

/** What a report says, without its time and log tails (which change on every repeat). */
function substance(report: DeploymentStatusReport): string {
  return JSON.stringify({ ...report, reported_at: undefined, jobs: report.jobs.map((job) => ({ ...job, log_tail: undefined })) });
}

function logTails(report: DeploymentStatusReport): string {
  return JSON.stringify(report.jobs.map((job) => job.log_tail ?? null));
}

function drained(stream: TunnelStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.body.off('drain', done).off('close', done);
      resolve();
    };
    stream.body.on('drain', done).on('close', done);
  });
}
