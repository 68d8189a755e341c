import { Module } from '@nestjs/common';
import { ServerMetrics } from './server-metrics';

/**
 * The application's one ServerMetrics (a module is instantiated once per application), imported
 * by each module that records into it: the tunnel's state, registrations, deployments, replicas,
 * and GET /metrics which reads it.
 */
@Module({ providers: [{ provide: ServerMetrics, useFactory: () => new ServerMetrics() }], exports: [ServerMetrics] })
export class ServerMetricsModule {}
