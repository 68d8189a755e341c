import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { ReplicaBus } from './replica-bus';

/**
 * A replica's shutdown in order: its tunnels close first, spread over DRAIN_SECS so their runtimes
 * move to the other replicas without a stampede, each entry marked lost as its tunnel closes, while
 * NATS still takes the writes; then the bus closes and the heartbeat is withdrawn. (The relay
 * closing the same tunnels again later finds none.)
 */
@Injectable()
export class ReplicaShutdown implements OnApplicationShutdown {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly bus: ReplicaBus,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.registry.closeAll('server shutting down', this.config.replicas!.drainMs);
    await this.bus.close();
  }
}
