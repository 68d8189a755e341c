import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConflictError } from '@svc/common';
import { Filter, Storage } from '../../storage/storage.port';
import { DEVICES, DeviceRecord, DeviceShare } from '../../storage/records';
import { DeviceAccessScope, SYSTEM_ACCESS } from './device-access-scope';
import { CHANGED_MEANWHILE } from './lost-races';

/** What a device listing reads of each device. */
export type DeviceListRow = Pick<DeviceRecord, 'id' | 'name' | 'ownerScope'>;

export interface DeviceListQuery {
  /** Only devices owned by this scope. */
  ownerScope?: string;
  /** Only devices whose name starts with this (compared as stored: case-sensitive). */
  namePrefix?: string;
  /** Keyset paging: only devices whose id sorts after this one. */
  after?: string;
  limit?: number;
}

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

  /**
   * The devices the scope reaches, sorted by id, reading only (id, name, ownerScope). Owned and
   * shared devices are two queries merged by id rather than one "or": the owned ones come from the
   * (ownerScope, id, name) index alone and the shared ones from the allowedScopes elements, where
   * one query would read and sort every document the "or" touches.
   */
  async listRows(access: DeviceAccessScope, query: DeviceListQuery = {}): Promise<DeviceListRow[]> {
    const filter: Filter<DeviceRecord> = {};
    if (query.after !== undefined) filter.id = { gt: query.after };
    if (query.namePrefix) filter.name = prefixRange(query.namePrefix);
    const options = { sort: { field: 'id', direction: 'asc' }, limit: query.limit } as const;
    const rows = (where: Filter<DeviceRecord>) => this.devices.findFields(where, ['name', 'ownerScope'], options) as Promise<DeviceListRow[]>;
    if (access === SYSTEM_ACCESS) return rows(query.ownerScope === undefined ? filter : { ...filter, ownerScope: query.ownerScope });
    const scopes = [...(access as { scopes: readonly string[] }).scopes];
    const owners = query.ownerScope === undefined ? scopes : scopes.filter((scope) => scope === query.ownerScope);
    const [owned, shared] = await Promise.all([
      owners.length > 0 ? rows({ ...filter, ownerScope: { in: owners } }) : [],
      rows({ ...filter, ...(query.ownerScope === undefined ? {} : { ownerScope: query.ownerScope }), allowedScopes: { in: scopes } }),
    ]);
    return mergeById(owned, shared, query.limit);
  }

  /**
   * The devices named `name` that the caller's scopes reach one way: `owned` (their owner scope is
   * one of them) or `shared` (shared with one of them), at most `limit` (two call a name ambiguous).
   */
  findNamed(access: { readonly scopes: readonly string[] }, name: string, reach: 'owned' | 'shared', limit = 2): Promise<DeviceRecord[]> {
    const scopes = { in: [...access.scopes] };
    // Sorted by name (all equal): sorted by id, SQLite would read all of an owner's devices in id order.
    const options = { sort: { field: 'name', direction: 'asc' }, limit } as const;
    return this.devices.find(reach === 'owned' ? { name, ownerScope: scopes } : { name, allowedScopes: scopes }, options);
  }

  findById(access: DeviceAccessScope, id: string): Promise<DeviceRecord | null> {
    return this.devices.findOne(this.scoped(access, { id }));
  }

  /** Tunnel authentication: the device an API key (by its SHA-256) belongs to. */
  findByApiKeyHash(access: DeviceAccessScope, apiKeyHash: string): Promise<DeviceRecord | null> {
    return this.devices.findOne(this.scoped(access, { apiKeyHash }));
  }

  insert(device: DeviceRecord): Promise<void> {
    return this.devices.insert(device);
  }

  /**
   * When devices were last heard from: bookkeeping, not a change of the devices, so no new
   * revision (a compare-and-set writer never loses to it). One write for many devices.
   */
  recordLastSeen(ids: readonly string[], at: Date): Promise<number> {
    return this.devices.updateMany({ id: { in: [...ids] } }, { lastSeen: at });
  }

  /** Every write gives the device a new revision: that is what makes `updateIfUnchanged` safe against all writes. */
  update(access: DeviceAccessScope, id: string, set: Partial<Omit<DeviceRecord, 'revision'>>): Promise<boolean> {
    return this.devices.updateOne(this.scoped(access, { id }), { ...set, revision: randomUUID() });
  }

  /**
   * Compare-and-set: writes only if nothing wrote the device since `read` was read. False when
   * another write came first (or the device went away): read again and decide again.
   */
  updateIfUnchanged(access: DeviceAccessScope, read: DeviceRecord, set: Partial<Omit<DeviceRecord, 'revision'>>): Promise<boolean> {
    return this.devices.updateOne(this.scoped(access, { id: read.id, revision: read.revision ?? null }), { ...set, revision: randomUUID() });
  }

  /**
   * `updateIfUnchanged` for writers that do not retry: a lost race is a ConflictError, which also
   * rolls back the transaction the write belongs to.
   */
  async updateOrConflict(access: DeviceAccessScope, read: DeviceRecord, set: Partial<Omit<DeviceRecord, 'revision'>>): Promise<void> {
    if (!(await this.updateIfUnchanged(access, read, set))) throw new ConflictError(CHANGED_MEANWHILE);
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

/** The shares and the flat `allowedScopes` derived from them, which storage filters and indexes. */
export function shareFields(shares: DeviceShare[]): Pick<DeviceRecord, 'shares' | 'allowedScopes'> {
  return { shares, allowedScopes: shares.map((share) => share.scope) };
}

/**
 * Both sorted by id: the first `limit` distinct devices of the two (a device can be owned and
 * shared). Device ids are ASCII, so JavaScript's order is the stores' order.
 */
function mergeById(a: DeviceListRow[], b: DeviceListRow[], limit = Infinity): DeviceListRow[] {
  if (b.length === 0) return a;
  const merged: DeviceListRow[] = [];
  let [i, j] = [0, 0];
  while (merged.length < limit && (i < a.length || j < b.length)) {
    const fromA = j >= b.length || (i < a.length && a[i].id <= b[j].id);
    const row = fromA ? a[i++] : b[j++];
    if (fromA && j < b.length && b[j].id === row.id) j++;
    merged.push(row);
  }
  return merged;
}

/**
 * A prefix as a range the name index serves: [prefix, the next string of that length). Both stores
 * compare strings by code point (UTF-8 bytes), so the bound increments the last code point.
 */
export function prefixRange(prefix: string): { gte: string; lt?: string } {
  const points = [...prefix].map((char) => char.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()! + 1;
    if (last === 0xd800) last = 0xe000; // surrogates are not characters
    if (last <= 0x10ffff) return { gte: prefix, lt: String.fromCodePoint(...points, last) };
  }
  return { gte: prefix };
}
