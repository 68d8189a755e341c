import { DynamicModule, Global, Module } from '@nestjs/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { SHARED_TUNNEL_DIRECTORY } from '../relay/tunnel-directory';
import { PeerSessions } from '../relay/tunnel-ports';
import { TunnelStateModule } from '../relay/tunnel-state.module';
import { PeerListener } from './peer-listener';
import { ReplicaShutdown } from './replica-shutdown';
import { ReplicaBus } from './replica-bus';
import { ReplicaEvents } from './replica-events';
import { SHARED_TICKET_STORE } from '../common/ticket-store';
import { NatsTicketStore } from './nats-ticket-store';
import { ServerMetrics } from '../common/server-metrics';
import { ServerMetricsModule } from '../common/server-metrics.module';

/**
 * Several replicas on one NATS (NATS_URL): provides the shared tunnel directory that the tunnel
 * state module picks up, ReplicaEvents (revocations, deployment changes), which their features
 * take when present, the terminal tickets (SHARED_TICKET_STORE), and the peer hop: PeerSessions (streams through the holding replica) and this
 * replica's PeerListener. Imported by the composition root only when NATS_URL is set.
 */
@Global()
@Module({})
export class ReplicasModule {
  static forRoot(): DynamicModule {
    return {
      module: ReplicasModule,
      // The peer listener serves streams from this process's own tunnels.
      imports: [TunnelStateModule, ServerMetricsModule],
      providers: [
        {
          provide: ReplicaBus,
          useFactory: (config: ServerConfig, metrics: ServerMetrics) => ReplicaBus.start(config.replicas!, config.replicaId, config.serverSecret, metrics),
          inject: [SERVER_CONFIG, ServerMetrics],
        },
        { provide: SHARED_TUNNEL_DIRECTORY, useFactory: (bus: ReplicaBus) => bus.directory, inject: [ReplicaBus] },
        { provide: ReplicaEvents, useFactory: (bus: ReplicaBus) => bus.events, inject: [ReplicaBus] },
        { provide: PeerSessions, useFactory: (bus: ReplicaBus) => bus.peers, inject: [ReplicaBus] },
        { provide: SHARED_TICKET_STORE, useFactory: (bus: ReplicaBus) => NatsTicketStore.open(bus.nc), inject: [ReplicaBus] },
        PeerListener,
        ReplicaShutdown,
      ],
      exports: [ReplicaBus, SHARED_TUNNEL_DIRECTORY, ReplicaEvents, PeerSessions, SHARED_TICKET_STORE],
    };
  }
}
