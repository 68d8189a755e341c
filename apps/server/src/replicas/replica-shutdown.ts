import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import type { ReplicaBus } from './replica-bus';
import { REPLICA_BUS } from './replicas.module';

/**
 * A replica's shutdown in order, before the REST server stops (which waits for every request in
 * flight): its tunnels close first, spread over DRAIN_SECS so their runtimes move to the other
 * replicas without a stampede, each entry marked lost as its tunnel closes, while NATS still takes
 * the writes; then the streams it relays through other replicas are cut (a job log followed or a
 * shell through the hop never ends on its own). Last, once the REST server stopped, the bus closes
 * and the heartbeat is withdrawn. (The relay closing the same tunnels again finds none.)
 */
@Injectable()
export class ReplicaShutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    private readonly registry: TunnelRegistry,
    /** Never null: ReplicaListenerModule, which provides this, is imported only when NATS_URL is set. */
    @Inject(REPLICA_BUS) private readonly bus: ReplicaBus,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.registry.closeAll('server shutting down', this.config.replicas!.drainMs);
    this.bus.closePeerHop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}
