import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DevicePresence, PresenceInfo } from './device-presence';
import { TunnelDirectory } from '../relay/tunnel-directory';

/**
 * device_status / devices_list presence from the tunnel directory, so it holds across replicas:
 * connected → online and `healthy` with the tunnel's uptime; lost → offline and `unreachable`;
 * never connected since this server started → offline and `unknown`.
 */
@Injectable()
export class TunnelPresence extends DevicePresence {
  constructor(
    private readonly directory: TunnelDirectory,
    private readonly clock: Clock,
  ) {
    super();
  }

  async presenceOf(deviceIds: readonly string[]): Promise<Map<string, PresenceInfo>> {
    const located = await this.directory.locate(deviceIds);
    const now = this.clock.now().getTime();
    const answer = new Map<string, PresenceInfo>();
    for (const [id, location] of located) {
      answer.set(
        id,
        location.state === 'connected'
          ? { online: true, health: 'healthy', uptimeSeconds: Math.max(0, Math.floor((now - location.connectedAt.getTime()) / 1000)), carrier: location.carrier, carrierNote: location.carrierNote }
          : { online: false, health: 'unreachable', uptimeSeconds: null, carrier: null },
      );
    }
    return answer;
  }
}
