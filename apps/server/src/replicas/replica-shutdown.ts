import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { ReplicaBus } from './replica-bus';

/**
 * A replica's shutdown in order: its tunnels close first, so their entries are marked lost while
 * NATS still takes the writes; then the bus closes and the heartbeat is withdrawn. (The relay
 * closing the same tunnels again later finds none.)
 */
@Injectable()
export class ReplicaShutdown implements OnApplicationShutdown {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly bus: ReplicaBus,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.registry.closeAll('server shutting down');
    await this.bus.close();
  }
}
