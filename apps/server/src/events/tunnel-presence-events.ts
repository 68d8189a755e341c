import { Injectable } from '@nestjs/common';
import type { TunnelPresenceListener } from '../relay/tunnel-ports';
import { TunnelDirectory } from '../relay/tunnel-directory';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { FleetEvents } from './fleet-events';

/**
 * device.online / device.offline, from the replica whose process the tunnel comes up on or leaves
 * (the other replicas hear it through FleetEvents). A tunnel that replaces one this process still
 * held (auto's carrier switch, a reconnect before the old one was seen gone) tells nothing: the
 * device was never offline, and the replaced tunnel's close tells no offline either. A stale
 * tunnel closed because the device connected to another replica is no offline: that replica told
 * online.
 */
@Injectable()
export class TunnelPresenceEvents implements TunnelPresenceListener {
  constructor(
    private readonly events: FleetEvents,
    private readonly directory: TunnelDirectory,
    private readonly registry: TunnelRegistry,
  ) {
    registry.onPresence(this);
  }

  connected(deviceId: string, replacing: boolean): void {
    if (replacing) return;
    this.events.emit({ type: 'device.online', audience: { deviceId }, deviceId });
  }

  disconnected(deviceId: string): void {
    const heldElsewhere = async () => {
      const where = (await this.directory.locate([deviceId])).get(deviceId);
      return where?.state === 'connected' && where.holder !== this.registry.holder;
    };
    this.events.emit({ type: 'device.offline', audience: { deviceId }, deviceId, onlyIf: async () => !(await heldElsewhere()) });
  }
}
