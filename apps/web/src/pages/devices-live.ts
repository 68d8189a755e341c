import { useCallback, useState } from 'preact/hooks';
import type { FleetEvent } from '../api/events';
import type { DeviceListItem, DeviceStatus } from '../api/types';
import { useFleetEvents, useLiveReload } from '../components/live';

/** Events that add or remove rows (a registration, a share, an owner change): the table reloads. */
const ROW_EVENTS = ['registration.pending', 'registration.approved', 'registration.rejected', 'access.changed'];
const PRESENCE_EVENTS = ['device.online', 'device.offline'];

interface Presence {
  status: 'online' | 'offline';
  at: string;
}

export interface LiveRows {
  items: DeviceListItem[];
  statuses: Map<string, DeviceStatus>;
}

/**
 * The device table's live part. `device.online`/`device.offline` change the row in place (no
 * request); while the table is filtered by status a change moves rows in or out, so it reloads.
 * Events that add or remove rows, and `reset`, reload it. `loading()` is called as a load starts:
 * what came before it is in the answer, what comes after is laid over it by `apply`.
 */
export function useLiveDeviceRows(reload: () => void, filteredByStatus: boolean) {
  const [presence, setPresence] = useState<Map<string, Presence>>(new Map());
  useLiveReload(ROW_EVENTS, reload);
  useFleetEvents(PRESENCE_EVENTS, (event: FleetEvent) => {
    if (event.type === 'reset') return; // useLiveReload reloads
    if (filteredByStatus) return reload();
    const id = event.data.device_id;
    if (typeof id !== 'string') return;
    const status = event.type === 'device.online' ? 'online' : 'offline';
    setPresence((old) => new Map(old).set(id, { status, at: event.data.at }));
  });
  const loading = useCallback(() => setPresence(new Map()), []);
  const apply = useCallback(<T extends LiveRows>(rows: T): T => overlay(rows, presence), [presence]);
  return { loading, apply };
}

function overlay<T extends LiveRows>(rows: T, presence: Map<string, Presence>): T {
  if (presence.size === 0) return rows;
  const statuses = new Map(rows.statuses);
  const items = rows.items.map((device) => {
    const live = presence.get(device.id);
    if (!live || device.status === 'pending') return device;
    const old = statuses.get(device.id);
    const since = Math.max(0, (Date.now() - Date.parse(live.at)) / 1000);
    statuses.set(device.id, {
      health: old?.health ?? 'unknown',
      ...old,
      status: live.status,
      uptime: live.status === 'online' ? since : null,
      last_seen: live.at,
    });
    return { ...device, status: live.status };
  });
  return { ...rows, items, statuses };
}
