import { Module } from '@nestjs/common';
import { AuthorizationModule } from '../authorization/authorization.module';
import { ServerMetricsModule } from '../common/server-metrics.module';
import { MetricsController } from './metrics.controller';

/** GET /metrics: the ServerMetrics every feature records into (ServerMetricsModule), for administrators. */
@Module({ imports: [AuthorizationModule, ServerMetricsModule], controllers: [MetricsController] })
export class MetricsModule {}
