import { Injectable } from '@nestjs/common';
import type { DeviceRecord, DeviceShare } from '../../storage/records';
import { callerAccess, DeviceAccessScope, SYSTEM_ACCESS } from './device-access-scope';
import { DevicesRepository, shareFields } from './devices.repository';

/** The fields a change writes; the revision is the repository's (every write sets a new one). */
export type DeviceChange = Partial<Omit<DeviceRecord, 'revision'>>;

/**
 * What other features read and write of the devices' records, through the devices feature:
 * AccessPolicy's device references, registration's approvals and re-keys, the tunnel's key
 * check, sharing, and organizations' moves, renames and deletions. Every call takes the caller's
 * access scope (`SYSTEM_ACCESS` only for the server's own bookkeeping); share lists are written
 * with the `allowedScopes` derived from them.
 */
@Injectable()
export class DeviceRecords {
  constructor(private readonly devices: DevicesRepository) {}

  /**
   * What a `device` reference names for a caller, tier by tier, the first tier that has a match
   * deciding: the caller's own devices (owned by its user scope or an organization it belongs to),
   * by id and then by name, and only then the devices shared with it, by id and then by name.
   * Two devices named alike in the deciding tier are both returned (ambiguous); none is not found.
   * So nobody who shares a device with the caller can capture a reference to one of its own
   * devices, by naming theirs after its id or name or by registering theirs under its name.
   */
  async referencedBy(scopes: readonly string[], ref: string): Promise<DeviceRecord[]> {
    const access = { scopes };
    const [byId, ownedNamed] = await Promise.all([this.devices.findById(access, ref), this.devices.findNamed(access, ref, 'owned')]);
    if (byId && scopes.includes(byId.ownerScope)) return [byId];
    if (ownedNamed.length > 0) return ownedNamed;
    if (byId) return [byId];
    return this.devices.findNamed(access, ref, 'shared');
  }

  findById(access: DeviceAccessScope, id: string): Promise<DeviceRecord | null> {
    return this.devices.findById(access, id);
  }

  /** Every device the scope reaches, owned or shared (an organization's, when it is renamed or deleted). */
  reachedBy(access: DeviceAccessScope): Promise<DeviceRecord[]> {
    return this.devices.list(access);
  }

  /** Tunnel authentication: the id of the device an API key (by its SHA-256) belongs to. */
  async idForApiKeyHash(apiKeyHash: string): Promise<string | null> {
    return (await this.devices.findByApiKeyHash(SYSTEM_ACCESS, apiKeyHash))?.id ?? null;
  }

  /** An approved registration's new device. */
  insert(device: DeviceRecord): Promise<void> {
    return this.devices.insert(device);
  }

  /** A re-key, or an owner change (which resets the shares). False when the scope does not reach the device. */
  update(access: DeviceAccessScope, id: string, change: DeviceChange): Promise<boolean> {
    return this.devices.update(access, id, change);
  }

  /** Compare-and-set of the share list: false when another write came since `read` (read again and decide again). */
  trySetShares(access: DeviceAccessScope, read: DeviceRecord, shares: DeviceShare[]): Promise<boolean> {
    return this.devices.updateIfUnchanged(access, read, shareFields(shares));
  }

  /** The same for writers that do not retry: a lost race is a ConflictError (rolling back their transaction). */
  setShares(access: DeviceAccessScope, read: DeviceRecord, shares: DeviceShare[]): Promise<void> {
    return this.devices.updateOrConflict(access, read, shareFields(shares));
  }

  /** An organization renamed: every device it reaches names `to` instead of `from`, as owner and in its shares. */
  async renameScope(from: string, to: string): Promise<void> {
    for (const device of await this.devices.list(callerAccess([from]))) {
      const shares = device.shares.map((s) => (s.scope === from ? { ...s, scope: to } : s));
      await this.devices.updateOrConflict(SYSTEM_ACCESS, device, { ownerScope: device.ownerScope === from ? to : device.ownerScope, ...shareFields(shares) });
    }
  }
}
