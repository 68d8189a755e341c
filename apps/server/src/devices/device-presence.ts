/**
 * Live connection facts about devices. Until the tunnel relay exists every device is offline;
 * the relay will provide its own implementation of this port (tunnel registry lookups).
 */
export interface PresenceInfo {
  online: boolean;
  health: string;
  uptimeSeconds: number | null;
}

export abstract class DevicePresence {
  abstract presenceOf(deviceId: string): PresenceInfo;
}

export class NoTunnelsPresence extends DevicePresence {
  presenceOf(): PresenceInfo {
    return { online: false, health: 'unknown', uptimeSeconds: null };
  }
}

/**
 * Listeners run after a device is removed or re-keyed (its API key revoked). The relay registers
 * one that closes the device's live tunnel.
 */
export class DeviceRevocations {
  private readonly listeners: ((deviceId: string) => void | Promise<void>)[] = [];

  onRevoked(listener: (deviceId: string) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  async revoked(deviceId: string): Promise<void> {
    for (const listener of this.listeners) await listener(deviceId);
  }
}
