import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { DeploymentStatusReport, DesiredState } from '@svc/common';
import type { TunnelSession } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentChanges } from './deployment-changes';
import { ChannelHost, DeploymentChannel } from './deployment-channel';
import { DeploymentReports } from './deployment-reports';
import { desiredStateOf } from './deployment-state';
import { ReportFreshness } from './report-freshness';

/**
 * How often the heads of the devices whose channels this process holds are compared with what
 * was sent: a change committed by another replica reaches the device within this time. (Changes
 * made here are sent at once, and so are the others' when replicas share NATS: ReplicaEvents.)
 */
export const HEAD_POLL_MS = 3_000;

/**
 * The deployment channels of the tunnels this process holds: one opens as each session goes
 * live (TunnelRegistry.onRegistered) and ends with it. Changes committed in this process reach
 * their channel at once (DeploymentChanges); changes from other replicas through the head poll.
 */
@Injectable()
export class DeploymentChannels implements OnModuleInit, OnApplicationShutdown, ChannelHost {
  readonly logger = new Logger('DeploymentChannels');
  private readonly channels = new Map<string, DeploymentChannel>();
  /** Devices whose runtime was found without the channel; logged once per device and process. */
  private readonly withoutChannel = new Set<string>();
  private poll: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly registry: TunnelRegistry,
    private readonly deployments: DeploymentsRepository,
    private readonly reports: DeploymentReports,
    private readonly changes: DeploymentChanges,
    private readonly freshness: ReportFreshness,
  ) {}

  onModuleInit(): void {
    this.registry.onRegistered((session) => this.open(session));
    this.changes.onChanged((deviceId) => this.channels.get(deviceId)?.refresh());
    this.poll = setInterval(() => void this.pollHeads(), HEAD_POLL_MS);
    this.poll.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.poll);
    for (const channel of this.channels.values()) channel.end();
    this.channels.clear();
  }

  desiredState(deviceId: string): Promise<DesiredState> {
    return desiredStateOf(this.deployments, deviceId);
  }

  storeReport(deviceId: string, report: DeploymentStatusReport): Promise<boolean> {
    return this.reports.store(deviceId, report);
  }

  refreshReport(deviceId: string, report: DeploymentStatusReport): Promise<boolean> {
    return this.reports.refresh(deviceId, report);
  }

  heard(deviceId: string, report: DeploymentStatusReport): void {
    this.freshness.record(deviceId, report);
  }

  unsupported(deviceId: string): void {
    if (this.withoutChannel.has(deviceId)) return;
    this.withoutChannel.add(deviceId);
    this.logger.log(`the runtime of device ${deviceId} has no deployment channel (an older runtime); deployments reach it once it is updated`);
  }

  private open(session: TunnelSession): void {
    const channel = new DeploymentChannel(session, this);
    this.channels.get(session.deviceId)?.end();
    this.channels.set(session.deviceId, channel);
    session.onClosed(() => {
      if (this.channels.get(session.deviceId) === channel) this.channels.delete(session.deviceId);
    });
    channel.run().catch((err: unknown) => this.logger.error(`deployment channel of ${session.deviceId} failed: ${(err as Error).message}`));
  }

  /** Sends to every channel whose device's head moved past what it sent (a change made elsewhere). */
  private async pollHeads(): Promise<void> {
    if (this.polling || this.channels.size === 0) return;
    this.polling = true;
    try {
      const revisions = await this.deployments.revisions([...this.channels.keys()]);
      for (const [deviceId, revision] of revisions) {
        const channel = this.channels.get(deviceId);
        if (channel && revision > channel.sentRevision) channel.refresh();
      }
    } catch (err) {
      this.logger.warn(`could not read deployment heads: ${(err as Error).message}`);
    } finally {
      this.polling = false;
    }
  }
}
