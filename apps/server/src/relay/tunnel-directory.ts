/**
 * Which server process holds each device's tunnel. The in-process implementation serves a single
 * server; a deployment with several replicas swaps in one backed by a shared engine (NATS, Redis)
 * without touching the operations, which only ask `locate` and then open a stream where it points.
 */
/** The carrier a tunnel runs on and, when the runtime gave one, why (hello `runtime.carrier_note`). */
export interface TunnelLink {
  carrier: 'tcp' | 'quic';
  carrierNote?: string;
}

export type TunnelLocation =
  | ({ state: 'connected'; holder: string; connectedAt: Date } & TunnelLink)
  | { state: 'lost'; since: Date };

export abstract class TunnelDirectory {
  /** This holder now has the device's tunnel (replacing whatever was recorded). */
  abstract connected(deviceId: string, holder: string, connectedAt: Date, link: TunnelLink): Promise<void>;
  /** The holder's tunnel went away; ignored when another holder has taken the device over. */
  abstract lost(deviceId: string, holder: string, at: Date): Promise<void>;
  /** The device no longer exists (rejected, removed): forget it entirely. */
  abstract forget(deviceId: string): Promise<void>;
  /** Locations of the devices asked; a device never seen has no entry. */
  abstract locate(deviceIds: readonly string[]): Promise<Map<string, TunnelLocation>>;
  /**
   * Tells `listener` when another holder has taken a device over (its runtime connected there
   * at `since`), so a holder that missed its own tunnel's end closes it. Only a shared directory
   * sees other holders: the in-process one never calls it.
   */
  onTakenOver(_listener: (deviceId: string, holder: string, since: Date) => void): void {}
}

/**
 * The tunnel state's port for a directory that replicas share (TunnelStateModule.withPorts): null
 * when the process is alone, which then keeps its own InProcessTunnelDirectory. A token, so the
 * tunnel folder names no adapter.
 */
export const SHARED_TUNNEL_DIRECTORY = Symbol('SHARED_TUNNEL_DIRECTORY');

export class InProcessTunnelDirectory extends TunnelDirectory {
  private readonly entries = new Map<string, TunnelLocation>();

  async connected(deviceId: string, holder: string, connectedAt: Date, link: TunnelLink): Promise<void> {
    this.entries.set(deviceId, { state: 'connected', holder, connectedAt, ...link });
  }

  async lost(deviceId: string, holder: string, at: Date): Promise<void> {
    const entry = this.entries.get(deviceId);
    if (entry?.state === 'connected' && entry.holder === holder) this.entries.set(deviceId, { state: 'lost', since: at });
  }

  async forget(deviceId: string): Promise<void> {
    this.entries.delete(deviceId);
  }

  async locate(deviceIds: readonly string[]): Promise<Map<string, TunnelLocation>> {
    const found = new Map<string, TunnelLocation>();
    for (const id of deviceIds) {
      const entry = this.entries.get(id);
      if (entry) found.set(id, entry);
    }
    return found;
  }
}
