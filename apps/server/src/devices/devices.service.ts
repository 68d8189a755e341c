import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AuditLogsResult, Capability, capabilityOf, ConflictError, DeviceConnectionStatus, DeviceListItem, DeviceRenameResult, DeviceListPage, DeviceNotFoundError, DeviceStatusResult, deviceNameProblem, InvalidInputError, LIMITS } from '@svc/common';
import { DevicesRepository } from './records/devices.repository';
import { Storage } from '../storage/storage.port';
import { Handles, OperationCall } from '../authorization/catalog-controller';
import type { DeviceRecord } from '../storage/records';
import { callerAccess, DeviceAccessScope, SYSTEM_ACCESS } from './records/device-access-scope';
import { AuditService } from '../audit/audit.service';
import { PendingReview, RegistrationsService } from '../registrations/registrations.service';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import { DEVICE_REMOVED, DeviceRemovedEvent } from './device-events';
import { DevicePresence, presenceIn } from './device-presence';
import { DeviceRevocations } from '../registrations/device-revocations';
import { DeviceListInput, DeviceListQuery, encodeCursor, ListCursor, parseListQuery } from './device-list-query';
import { BatchTarget, runBatch } from './batch';
import { AuditLogQuery, parseAuditRange } from './audit-range';

/** Whose audit entries a device_audit_logs item reads: a device, or a removed one up to its removal. */
type AuditHistory = { id: string; historySince: Date; removedAt?: Date };

/** With a status filter, devices are read in chunks of at least this many until a page fills. */
const STATUS_FILTER_CHUNK = 500;

function listPage(items: DeviceListItem[], next: ListCursor | null): DeviceListPage {
  return { items, next_cursor: next ? encodeCursor(next) : null };
}

@Injectable()
export class DevicesService {
  constructor(
    private readonly devices: DevicesRepository,
    private readonly policy: AccessPolicy,
    private readonly registrations: RegistrationsService,
    private readonly presence: DevicePresence,
    private readonly revocations: DeviceRevocations,
    private readonly audit: AuditService,
    private readonly storage: Storage,
    private readonly events: EventEmitter2,
  ) {}

  /**
   * devices_list. Without `limit`/`cursor`: the devices the caller reaches, then the pending
   * requests it may decide, as one array (the specification's shape). With either: one page,
   * `{items, next_cursor}`, devices by id and then pending requests. Filters apply to both forms.
   */
  @Handles('devices_list')
  async list({ principal, input }: OperationCall<'devices_list'>): Promise<DeviceListItem[] | DeviceListPage> {
    const query = parseListQuery(input);
    const access = callerAccess(principal.scopes);
    const [withDevices, withPending] = [query.status !== 'pending', query.status === undefined || query.status === 'pending'];
    if (!query.page) {
      return [...(withDevices ? await this.deviceItems(access, query, undefined, Infinity) : []), ...(withPending ? await this.pendingItems(principal, query) : [])];
    }
    const { limit, cursor } = query.page;
    const items: DeviceListItem[] = [];
    if (withDevices && cursor?.phase !== 'pending') {
      const devices = await this.deviceItems(access, query, cursor?.after, limit + 1);
      if (devices.length > limit) return listPage(devices.slice(0, limit), { phase: 'devices', after: devices[limit - 1].id });
      items.push(...devices);
    }
    if (withPending) {
      const start = cursor?.phase === 'pending' ? cursor.after : '';
      const pending = (await this.pendingItems(principal, query)).filter((item) => item.id > start);
      const room = limit - items.length;
      items.push(...pending.slice(0, room));
      if (pending.length > room) return listPage(items, { phase: 'pending', after: room > 0 ? items[items.length - 1].id : start });
    }
    return listPage(items, null);
  }

  /** org_devices_list: every device the access scope reaches, as list items. */
  listItems(access: DeviceAccessScope): Promise<DeviceListItem[]> {
    return this.deviceItems(access, {}, undefined, Infinity);
  }

  /**
   * Devices as list items, by id, at most `want`: per chunk one storage query reading only the
   * listed fields and one presence batch. A status filter reads further chunks until enough match.
   */
  private async deviceItems(access: DeviceAccessScope, query: DeviceListQuery, after: string | undefined, want: number): Promise<DeviceListItem[]> {
    const chunk = query.status ? Math.max(want, STATUS_FILTER_CHUNK) : want;
    const items: DeviceListItem[] = [];
    for (;;) {
      const rows = await this.devices.listRows(access, { ownerScope: query.ownerScope, namePrefix: query.namePrefix, after, limit: chunk === Infinity ? undefined : chunk });
      const presence = rows.length > 0 ? await this.presence.presenceOf(rows.map((row) => row.id)) : new Map();
      for (const row of rows) {
        const status = presenceIn(presence, row.id).online ? 'online' : 'offline';
        if (query.status === undefined || query.status === status) items.push({ id: row.id, name: row.name, status, owner: row.ownerScope });
      }
      if (items.length >= want || rows.length < chunk) return items.slice(0, want);
      after = rows[rows.length - 1].id;
    }
  }

  /** Pending requests the caller may decide, by request id, filtered like devices (the name is the hostname). */
  private async pendingItems(principal: UserPrincipal, query: DeviceListQuery): Promise<DeviceListItem[]> {
    const reviews = await this.registrations.reviewPending(principal);
    const replaced = reviews.flatMap((review) => (review.replaces ? [review.replaces.id] : []));
    const presence = replaced.length > 0 ? await this.presence.presenceOf(replaced) : new Map();
    const pending = reviews.map((review) => this.pendingItem(review, review.replaces && presenceIn(presence, review.replaces.id).online ? 'online' : 'offline'));
    return pending
      .filter((item) => (query.ownerScope === undefined || item.owner === query.ownerScope) && (query.namePrefix === undefined || item.name.startsWith(query.namePrefix)))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * What an approver needs to decide: the key fingerprint to compare, where it came from, and
   * whether approving replaces the key of a registered device (which cuts that device off).
   */
  private pendingItem({ request: r, keyMismatch, registeredFingerprint, replaces }: PendingReview, replacedStatus: DeviceConnectionStatus): DeviceListItem {
    return {
      id: r.id,
      name: r.name ?? r.info.hostname,
      status: 'pending' as const,
      owner: r.ownerScope,
      request_id: r.id,
      device_id: r.deviceId,
      hostname: r.info.hostname,
      platform: r.info.platform,
      requester: `${r.deviceId} (${r.sourceAddress})`,
      fingerprint: r.fingerprint,
      source_address: r.sourceAddress,
      ...(keyMismatch ? { key_mismatch: true, registered_fingerprint: registeredFingerprint } : {}),
      ...(replaces ? { replaces: { device_id: replaces.id, name: replaces.name, status: replacedStatus } } : {}),
    };
  }

  /** device_show: the device OperationGuard authorized (device:view), as devices_list lists it. */
  @Handles('device_show')
  async show({ authorized }: OperationCall<'device_show'>): Promise<DeviceListItem> {
    const { device } = authorized.device!;
    const online = presenceIn(await this.presence.presenceOf([device.id]), device.id).online;
    return { id: device.id, name: device.name, status: online ? 'online' : 'offline', owner: device.ownerScope };
  }

  status(principal: UserPrincipal, ref: string): Promise<DeviceStatusResult> {
    return this.statusOf(principal, { device: ref }) as Promise<DeviceStatusResult>;
  }

  @Handles('device_status')
  statusBatch({ principal, input }: OperationCall<'device_status'>) {
    return this.statusOf(principal, input);
  }

  /** device_status for `device` or `devices`. */
  statusOf(principal: UserPrincipal, target: BatchTarget) {
    return runBatch(target, {
      resolve: this.viewable(principal, capabilityOf('device_status')),
      run: async (device): Promise<DeviceStatusResult> => {
        const presence = presenceIn(await this.presence.presenceOf([device.id]), device.id);
        return {
          status: presence.online ? 'online' : 'offline',
          health: presence.health,
          uptime: presence.uptimeSeconds,
          last_seen: device.lastSeen ? device.lastSeen.toISOString() : null,
          ...(presence.carrier === null ? {} : { carrier: presence.carrier }),
          ...(presence.carrierNote === undefined ? {} : { carrier_note: presence.carrierNote }),
        };
      },
    });
  }

  /**
   * device_audit_logs for `device` or `devices`. The range is checked once, before any device:
   * a malformed range is a 400 for the whole request, not an error per item. Entries older than
   * the device's registration (an earlier device with the same id) are never shown. A batch answer
   * holds at most LIMITS.auditLogsBatchMaxEntries entries: when `max` × devices would exceed it,
   * each device gets an equal share, and a device with more entries than its share says `truncated`.
   * A removed device's history stays readable by its former owner (AccessPolicy.requireRemovedDeviceHistory),
   * up to its removal.
   */
  @Handles('device_audit_logs')
  auditLogsBatch({ principal, input }: OperationCall<'device_audit_logs'>) {
    return this.auditLogs(principal, input);
  }

  auditLogs(principal: UserPrincipal, target: BatchTarget & AuditLogQuery) {
    const range = parseAuditRange(target);
    const viewable = this.viewable(principal, capabilityOf('device_audit_logs'));
    return runBatch<AuditHistory, AuditLogsResult>(target, {
      resolve: async (ref: string): Promise<{ key: string; target: AuditHistory }> => {
        try {
          return await viewable(ref);
        } catch (err) {
          if (!(err instanceof DeviceNotFoundError)) throw err;
          const removed = await this.policy.requireRemovedDeviceHistory(principal, ref);
          return { key: removed.id, target: removed };
        }
      },
      run: async (device, { count }): Promise<AuditLogsResult> => {
        const since = range.since && range.since > device.historySince ? range.since : device.historySince;
        const removedUntil = device.removedAt && new Date(device.removedAt.getTime() + 1);
        const until = removedUntil && (!range.until || range.until > removedUntil) ? removedUntil : range.until;
        const max = Math.min(range.max, Math.floor(LIMITS.auditLogsBatchMaxEntries / count));
        if (max === range.max) return { logs: await this.audit.forDevice(device.id, { ...range, since, until }) };
        const logs = await this.audit.forDevice(device.id, { ...range, since, until, max: max + 1 });
        return logs.length > max ? { logs: logs.slice(0, max), truncated: true } : { logs };
      },
    });
  }

  /** A batch's resolve step: the device a reference names, keyed by id, if the caller holds `capability` there. */
  private viewable(principal: UserPrincipal, capability: Capability) {
    return async (ref: string) => {
      const { device } = await this.policy.requireDevice(principal, ref, capability);
      return { key: device.id, target: device };
    };
  }

  /**
   * device_rename, on `device` as AccessPolicy authorized it (OperationGuard, the catalog's
   * capability); the name is what `svc devices list` shows and what a `device` parameter may name.
   */
  @Handles('device_rename')
  async rename({ principal, authorized, input }: OperationCall<'device_rename'>): Promise<DeviceRenameResult> {
    const [device, name] = [authorized.device!.device, input.name];
    const problem = deviceNameProblem(name);
    if (problem !== null) throw new InvalidInputError(`name: ${problem}`);
    // Another device's id, whoever owns it: a name is never a second way to spell an id.
    if (name !== device.id && (await this.devices.findById(SYSTEM_ACCESS, name)) !== null) {
      throw new ConflictError(`name: "${name}" is the id of another device; a device name may not be a device id`);
    }
    if (!(await this.devices.update(callerAccess(principal.scopes), device.id, { name }))) throw new DeviceNotFoundError();
    await this.audit.record(principal, 'device.renamed', { deviceId: device.id, details: `renamed device ${device.id} from "${device.name}" to "${name}"` });
    return { status: 'renamed', device_id: device.id, name };
  }

  /**
   * A pending request becomes rejected; an approved device is removed and its key revoked. What
   * other features keep about it (deployments, reports) goes with it: they listen to DEVICE_REMOVED,
   * published in the same transaction, so a device registered later under the same id starts without them.
   */
  @Handles('devices_reject', { authorizedBy: 'service' })
  async reject({ principal, input }: OperationCall<'devices_reject'>): Promise<{ status: 'rejected' }> {
    const ref = input.device;
    if (await this.registrations.rejectPending(principal, ref)) return { status: 'rejected' };
    const { device } = await this.policy.requireDevice(principal, ref, capabilityOf('devices_reject'));
    await this.storage.transaction(async () => {
      if (!(await this.devices.delete(callerAccess(principal.scopes), device.id))) throw new DeviceNotFoundError();
      await this.events.emitAsync(DEVICE_REMOVED, new DeviceRemovedEvent(device.id));
    });
    await this.audit.record(principal, 'device.removed', {
      deviceId: device.id,
      details: `removed device ${device.id} (${device.name}); API key revoked`,
      removed: { ownerScope: device.ownerScope, historySince: device.historySince },
    });
    await this.revocations.revoked(device, 'removed');
    return { status: 'rejected' };
  }
}
