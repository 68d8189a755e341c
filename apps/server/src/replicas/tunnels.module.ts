import { Module } from '@nestjs/common';
import { TunnelStateModule } from '../relay/tunnel-state.module';
import { ReplicasModule } from './replicas.module';

/**
 * This process's tunnels (TunnelRegistry, TunnelDirectory), for every module that opens streams or
 * reads presence, and for the relay through the composition root: relay/'s TunnelStateModule with
 * the replicas' ports plugged in (the shared directory and the peer hop when NATS_URL is set).
 * relay/ imports no feature, so they are plugged in here, once: one TunnelRegistry per process.
 */
@Module({ imports: [TunnelStateModule.withPorts(ReplicasModule)], exports: [TunnelStateModule] })
export class TunnelsModule {}
