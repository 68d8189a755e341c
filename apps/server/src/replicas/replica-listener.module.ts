import { Module } from '@nestjs/common';
import { PeerListener } from './peer-listener';
import { ReplicaShutdown } from './replica-shutdown';
import { ReplicasModule } from './replicas.module';
import { TunnelsModule } from './tunnels.module';

/**
 * This replica's peer listener (PEER_PORT), which serves streams from this process's own tunnels
 * to the other replicas, and its shutdown in order. Imported by the composition root only when
 * NATS_URL is set: a single process listens on no peer port.
 */
@Module({ imports: [ReplicasModule, TunnelsModule], providers: [PeerListener, ReplicaShutdown] })
export class ReplicaListenerModule {}
