/**
 * Live connection facts about devices. The relay answers them from its tunnel directory, possibly
 * about tunnels held by another replica, so the port is asynchronous and takes a batch: a listing
 * asks once for all its devices instead of once per device.
 */
export interface PresenceInfo {
  online: boolean;
  health: string;
  uptimeSeconds: number | null;
  /** While online: the tunnel's carrier, and the runtime's note on why it is not QUIC. */
  carrier: 'tcp' | 'quic' | null;
  carrierNote?: string;
}

export const OFFLINE: PresenceInfo = Object.freeze({ online: false, health: 'unknown', uptimeSeconds: null, carrier: null });

export abstract class DevicePresence {
  /** Presence of each device asked; a device without an entry is offline, health unknown (see `presenceIn`). */
  abstract presenceOf(deviceIds: readonly string[]): Promise<Map<string, PresenceInfo>>;
}

/** Reads one device from a `presenceOf` answer, treating a missing entry as offline. */
export function presenceIn(answer: ReadonlyMap<string, PresenceInfo>, deviceId: string): PresenceInfo {
  return answer.get(deviceId) ?? OFFLINE;
}
