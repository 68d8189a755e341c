import { Injectable } from '@nestjs/common';
import { DeploymentStatusReport, STALE_REPORT_MS } from '@svc/common';
import { Clock } from '../common/clock';

/** Deployments of one device whose last report time is kept; a device reports on one or two at a time. */
const DEPLOYMENTS_KEPT = 16;

export interface HeardReport {
  /** The report's own time (the device's clock). */
  reportedAt: string;
  /** When this server received it (its clock). */
  receivedAt: Date;
}

/**
 * When each device last reported on each deployment, repeats included: the channel stores a
 * report that says nothing new only every REPORT_REFRESH_MS, but a status must say how fresh it is.
 * Kept in the process that holds the device's channel (a replica without it falls back to the
 * stored report's time).
 */
@Injectable()
export class ReportFreshness {
  private readonly heard = new Map<string, Map<string, HeardReport>>();

  constructor(private readonly clock: Clock) {}

  record(deviceId: string, report: DeploymentStatusReport): void {
    const byDeployment = this.heard.get(deviceId) ?? new Map<string, HeardReport>();
    this.heard.set(deviceId, byDeployment);
    byDeployment.delete(report.deployment_id);
    byDeployment.set(report.deployment_id, { reportedAt: report.reported_at, receivedAt: this.clock.now() });
    if (byDeployment.size > DEPLOYMENTS_KEPT) byDeployment.delete(byDeployment.keys().next().value!);
  }

  lastHeard(deviceId: string, deploymentId: string): HeardReport | undefined {
    return this.heard.get(deviceId)?.get(deploymentId);
  }
}

export interface FreshnessFacts {
  online: boolean;
  /** The device is expected to report on this deployment (it is the active one). */
  active: boolean;
  /** When the server last received a report on it; null: never. */
  receivedAt: Date | null;
  /** Since when the device has been connected (null: offline). */
  connectedAt: Date | null;
  /** When the deployment last became active. */
  activatedAt: Date | null;
  now: Date;
}

/**
 * Whether a deployment status may no longer be true (docs/deployments.md, "Status"): the device is
 * offline, or, connected, it has not reported on its active deployment for STALE_REPORT_MS since
 * the last of its report, its connection and the activation. An inactive deployment's last report
 * is final (the device no longer runs it), so it is not stale while the device is online.
 */
export function isStale(facts: FreshnessFacts): boolean {
  if (!facts.online) return true;
  if (!facts.active) return false;
  const since = Math.max(facts.receivedAt?.getTime() ?? 0, facts.connectedAt?.getTime() ?? 0, facts.activatedAt?.getTime() ?? 0);
  return facts.now.getTime() - since > STALE_REPORT_MS;
}
