import { DynamicModule, Global, Module } from '@nestjs/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { SHARED_TUNNEL_DIRECTORY } from '../relay/tunnel-directory';
import { ReplicaBus } from './replica-bus';
import { ReplicaEvents } from './replica-events';

/**
 * Several replicas on one NATS (NATS_URL): provides the shared tunnel directory that the tunnel
 * state module picks up, and ReplicaEvents (revocations, deployment changes), which their
 * features take when present. Imported by the composition root only when NATS_URL is set.
 */
@Global()
@Module({})
export class ReplicasModule {
  static forRoot(): DynamicModule {
    return {
      module: ReplicasModule,
      providers: [
        {
          provide: ReplicaBus,
          useFactory: (config: ServerConfig) => ReplicaBus.start(config.replicas!, config.replicaId),
          inject: [SERVER_CONFIG],
        },
        { provide: SHARED_TUNNEL_DIRECTORY, useFactory: (bus: ReplicaBus) => bus.directory, inject: [ReplicaBus] },
        { provide: ReplicaEvents, useFactory: (bus: ReplicaBus) => bus.events, inject: [ReplicaBus] },
      ],
      exports: [ReplicaBus, SHARED_TUNNEL_DIRECTORY, ReplicaEvents],
    };
  }
}
