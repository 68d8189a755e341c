import { Module } from '@nestjs/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { SHARED_TUNNEL_DIRECTORY } from '../relay/tunnel-directory';
import { PeerSessions } from '../relay/tunnel-ports';
import { ReplicaEvents } from './replica-events';
import { SHARED_TICKET_STORE } from '../common/ticket-store';
import { NatsTicketStore } from './nats-ticket-store';
import { ServerMetrics } from '../common/server-metrics';
import { ServerMetricsModule } from '../common/server-metrics.module';
import type { ReplicaBus } from './replica-bus';

/** This process's ReplicaBus: started when NATS_URL is set, null otherwise. */
export const REPLICA_BUS = Symbol('REPLICA_BUS');

/** The NATS client loads only when NATS_URL is set: required here, at that moment. */
const replicaBus = (): typeof import('./replica-bus') => require('./replica-bus');

/**
 * What several replicas on one NATS (NATS_URL) share, for each module that imports this one: the
 * tunnel directory (SHARED_TUNNEL_DIRECTORY) and the peer hop (PeerSessions), which TunnelsModule
 * plugs into relay/; ReplicaEvents (revocations, deployment changes, fleet events); the terminal
 * tickets (SHARED_TICKET_STORE). Without NATS_URL each is null: one process, and its importers
 * keep everything in it. Not global, and imported as the class: Nest makes one instance of it, so
 * the bus is started once whoever imports it.
 */
@Module({
  imports: [ServerMetricsModule],
  providers: [
    {
      provide: REPLICA_BUS,
      useFactory: ({ replicas, replicaId, serverSecret }: ServerConfig, metrics: ServerMetrics) => (replicas ? replicaBus().ReplicaBus.start(replicas, replicaId, serverSecret, metrics) : null),
      inject: [SERVER_CONFIG, ServerMetrics],
    },
    { provide: SHARED_TUNNEL_DIRECTORY, useFactory: (bus: ReplicaBus | null) => bus?.directory ?? null, inject: [REPLICA_BUS] },
    { provide: ReplicaEvents, useFactory: (bus: ReplicaBus | null) => bus?.events ?? null, inject: [REPLICA_BUS] },
    { provide: PeerSessions, useFactory: (bus: ReplicaBus | null) => bus?.peers ?? null, inject: [REPLICA_BUS] },
    { provide: SHARED_TICKET_STORE, useFactory: (bus: ReplicaBus | null) => (bus ? NatsTicketStore.open(bus.nc) : null), inject: [REPLICA_BUS] },
  ],
  exports: [REPLICA_BUS, SHARED_TUNNEL_DIRECTORY, ReplicaEvents, PeerSessions, SHARED_TICKET_STORE],
})
export class ReplicasModule {}
