import { Controller, Header } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CatalogRoute } from '../authorization/operation.decorator';
import { ServerMetrics } from '../common/server-metrics';

/** Prometheus text format (ROUTES metrics); never public: server administrators and the admin key, as AccessPolicy decides its server capability. */
@ApiTags('metrics')
@ApiSecurity('admin-key')
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ServerMetrics) {}

  @CatalogRoute('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
