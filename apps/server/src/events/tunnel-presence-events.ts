import { Injectable } from '@nestjs/common';
import type { TunnelPresenceListener } from '../relay/tunnel-ports';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { FleetEvents } from './fleet-events';

/**
 * device.online / device.offline, from the replica whose process the tunnel comes up on or leaves
 * (the other replicas hear it through FleetEvents). A replaced tunnel (a reconnect) is online again.
 */
@Injectable()
export class TunnelPresenceEvents implements TunnelPresenceListener {
  constructor(
    private readonly events: FleetEvents,
    registry: TunnelRegistry,
  ) {
    registry.onPresence(this);
  }

  connected(deviceId: string): void {
    this.events.emit({ type: 'device.online', audience: { deviceId }, deviceId });
  }

  disconnected(deviceId: string): void {
    this.events.emit({ type: 'device.offline', audience: { deviceId }, deviceId });
  }
}
