import { Global, Module } from '@nestjs/common';
import { AuthorizationModule } from '../authorization/authorization.module';
import { MetricsController } from './metrics.controller';
import { ServerMetrics } from '../common/server-metrics';

/** GET /metrics and the ServerMetrics every feature records into. */
@Global()
@Module({
  imports: [AuthorizationModule],
  controllers: [MetricsController],
  providers: [{ provide: ServerMetrics, useFactory: () => new ServerMetrics() }],
  exports: [ServerMetrics],
})
export class MetricsModule {}
