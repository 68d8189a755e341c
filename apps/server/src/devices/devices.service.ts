import { Injectable } from '@nestjs/common';
import { AuditEntry, DeviceListItem, DeviceNotFoundError, DeviceStatusResult, InvalidInputError, LIMITS } from '@svc/common';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { callerAccess } from '../storage/repositories/device-access-scope';
import { DeviceRecord } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import { RegistrationsService } from '../registrations/registrations.service';
import type { UserPrincipal } from '../auth/principal';
import { DeviceResolver } from './device-resolver.service';
import { DevicePresence, DeviceRevocations } from './device-presence';
import { BatchTarget, runBatch } from './batch';

export interface AuditLogQuery {
  since?: string;
  until?: string;
  max?: number;
}

@Injectable()
export class DevicesService {
  constructor(
    private readonly devices: DevicesRepository,
    private readonly resolver: DeviceResolver,
    private readonly registrations: RegistrationsService,
    private readonly presence: DevicePresence,
    private readonly revocations: DeviceRevocations,
    private readonly audit: AuditService,
  ) {}

  /** Devices the caller can reach, then the pending requests the caller may decide. */
  async list(principal: UserPrincipal): Promise<DeviceListItem[]> {
    const devices = await this.devices.list(callerAccess(principal.scopes));
    const pending = await this.registrations.pendingFor(principal);
    return [
      ...devices.map((d) => this.listItem(d)),
      ...pending.map((r) => ({
        id: r.id,
        name: r.info.hostname,
        status: 'pending' as const,
        owner: r.ownerScope,
        request_id: r.id,
        device_id: r.deviceId,
        hostname: r.info.hostname,
        platform: r.info.platform,
        requester: `${r.deviceId} (${r.sourceAddress})`,
      })),
    ];
  }

  listItem(device: DeviceRecord): DeviceListItem {
    return { id: device.id, name: device.name, status: this.presence.presenceOf(device.id).online ? 'online' : 'offline', owner: device.ownerScope };
  }

  async status(principal: UserPrincipal, ref: string): Promise<DeviceStatusResult> {
    const { device } = await this.resolver.resolve(principal, ref, 'device:view');
    const presence = this.presence.presenceOf(device.id);
    return {
      status: presence.online ? 'online' : 'offline',
      health: presence.health,
      uptime: presence.uptimeSeconds,
      last_seen: device.lastSeen ? device.lastSeen.toISOString() : null,
    };
  }

  /** device_status for `device` or `devices`. */
  statusOf(principal: UserPrincipal, target: BatchTarget) {
    return runBatch(target, (device) => this.status(principal, device));
  }

  /**
   * device_audit_logs for `device` or `devices`. The range is checked once, before any device:
   * a malformed range is a 400 for the whole request, not an error per item. Entries older than
   * the device's registration (an earlier device with the same id) are never shown.
   */
  auditLogs(principal: UserPrincipal, target: BatchTarget & AuditLogQuery) {
    const range = parseRange(target);
    return runBatch(target, async (ref): Promise<{ logs: AuditEntry[] }> => {
      const { device } = await this.resolver.resolve(principal, ref, 'device:view');
      const since = range.since && range.since > device.historySince ? range.since : device.historySince;
      return { logs: await this.audit.forDevice(device.id, { ...range, since }) };
    });
  }

  /** A pending request becomes rejected; an approved device is removed and its key revoked. */
  async reject(principal: UserPrincipal, ref: string): Promise<{ status: 'rejected' }> {
    if (await this.registrations.rejectPending(principal, ref)) return { status: 'rejected' };
    const { device } = await this.resolver.resolve(principal, ref, 'device:manage');
    if (!(await this.devices.delete(callerAccess(principal.scopes), device.id))) throw new DeviceNotFoundError();
    await this.audit.record(principal, 'device.removed', { deviceId: device.id, details: `removed device ${device.id} (${device.name}); API key revoked` });
    await this.revocations.revoked(device.id);
    return { status: 'rejected' };
  }
}

function parseRange(query: AuditLogQuery): { since?: Date; until?: Date; max: number } {
  const since = parseInstant('since', query.since);
  const until = parseInstant('until', query.until);
  if (since && until && since >= until) throw new InvalidInputError('since must be before until');
  const max = query.max ?? LIMITS.auditLogsDefaultMax;
  if (!Number.isInteger(max) || max < 1 || max > LIMITS.auditLogsMaxMax) throw new InvalidInputError(`max must be a whole number between 1 and ${LIMITS.auditLogsMaxMax}`);
  return { since, until, max };
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function parseInstant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!ISO_8601.test(value) || Number.isNaN(date.getTime())) throw new InvalidInputError(`${name} must be an ISO 8601 timestamp`);
  return date;
}
