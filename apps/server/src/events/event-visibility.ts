import { Injectable } from '@nestjs/common';
import { AccessPolicy } from '../authorization/access-policy.service';
import { DeviceRecords } from '../devices/records/device-records';
import { SYSTEM_ACCESS } from '../devices/records/device-access-scope';
import { OrgRecords } from '../orgs/records/org-records';
import type { UserPrincipal } from '../auth/principal';
import type { DeviceRecord, OrgRecord } from '../storage/records';
import type { FleetEvent } from './fleet-event';

/** The streams sending one event within this time share one read of its device or organization. */
const SHARED_READ_MS = 1_000;

/**
 * Whether a connected caller may see an event, decided by AccessPolicy at send time on the device
 * or organization as stored now: a share removed a moment ago already hides the device's events,
 * and a removed device's events reach nobody.
 */
@Injectable()
export class EventVisibility {
  private readonly reads = new WeakMap<FleetEvent, { at: number; target: Promise<DeviceRecord | OrgRecord | null> }>();

  constructor(
    private readonly policy: AccessPolicy,
    private readonly devices: DeviceRecords,
    private readonly orgs: OrgRecords,
  ) {}

  async visible(principal: UserPrincipal, event: FleetEvent): Promise<boolean> {
    const audience = event.audience;
    if ('approversOf' in audience) return this.policy.decidesRegistrationsFor(principal, audience.approversOf);
    if ('deviceId' in audience) {
      const device = (await this.target(event, () => this.devices.findById(SYSTEM_ACCESS, audience.deviceId))) as DeviceRecord | null;
      return device !== null && this.policy.watchesDevice(principal, device);
    }
    // The member a change is about hears of it, even when it took away their view of the organization.
    if (audience.member === principal.email) return true;
    const org = (await this.target(event, () => this.orgs.findById(audience.orgId))) as OrgRecord | null;
    return org !== null && this.policy.watchesOrg(principal, org);
  }

  private target(event: FleetEvent, read: () => Promise<DeviceRecord | OrgRecord | null>): Promise<DeviceRecord | OrgRecord | null> {
    const now = Date.now();
    const recent = this.reads.get(event);
    if (recent && now - recent.at < SHARED_READ_MS) return recent.target;
    const target = read();
    this.reads.set(event, { at: now, target });
    return target;
  }
}
