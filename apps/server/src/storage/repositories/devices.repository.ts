import { Injectable } from '@nestjs/common';
import { Filter, Storage } from '../storage.port';
import { DEVICES, DeviceRecord } from '../records';
import { DeviceAccessScope, SYSTEM_ACCESS } from './device-access-scope';

/** The only way to touch devices in storage; every query is filtered by the access scope. */
@Injectable()
export class DevicesRepository {
  private readonly devices;

  constructor(storage: Storage) {
    this.devices = storage.collection(DEVICES);
  }

  list(access: DeviceAccessScope): Promise<DeviceRecord[]> {
    return this.devices.find(this.scoped(access, {}), { sort: { field: 'id', direction: 'asc' } });
  }

  /** Finds by id, or else by name, among the devices the scope may reach. */
  async findByIdOrName(access: DeviceAccessScope, ref: string): Promise<DeviceRecord[]> {
    const byId = await this.devices.findOne(this.scoped(access, { id: ref }));
    if (byId) return [byId];
    return this.devices.find(this.scoped(access, { name: ref }), { limit: 2 });
  }

  findById(access: DeviceAccessScope, id: string): Promise<DeviceRecord | null> {
    return this.devices.findOne(this.scoped(access, { id }));
  }

  insert(device: DeviceRecord): Promise<void> {
    return this.devices.insert(device);
  }

  update(access: DeviceAccessScope, id: string, set: Partial<DeviceRecord>): Promise<boolean> {
    return this.devices.updateOne(this.scoped(access, { id }), set);
  }

  delete(access: DeviceAccessScope, id: string): Promise<boolean> {
    return this.devices.deleteOne(this.scoped(access, { id }));
  }

  private scoped(access: DeviceAccessScope, filter: Filter<DeviceRecord>): Filter<DeviceRecord> {
    if (access === SYSTEM_ACCESS) return filter;
    const scopes = [...(access as { scopes: readonly string[] }).scopes];
    return { or: [{ ...filter, ownerScope: { in: scopes } }, { ...filter, allowedScopes: { in: scopes } }] };
  }
}
