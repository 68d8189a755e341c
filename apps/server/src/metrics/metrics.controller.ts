import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ServerAdministration } from '../authorization/operation.decorator';
import { ServerMetrics } from '../common/server-metrics';

/** Prometheus text format; never public: server administrators and the admin key (AccessPolicy: server:read-metrics). */
@ApiTags('metrics')
@ApiSecurity('admin-key')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: ServerMetrics) {}

  @Get()
  @ServerAdministration('server:read-metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOkResponse({ description: 'Prometheus exposition format', schema: { type: 'string' } })
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
