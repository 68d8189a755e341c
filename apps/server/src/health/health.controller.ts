import { Controller, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { CatalogRouteResult } from '@svc/common';
import { CatalogRoute } from '../authorization/operation.decorator';
import { Storage } from '../storage/storage.port';

const STARTED = Date.now();
const PING_TIMEOUT_MS = 2000;

/** Liveness plus storage readiness (ROUTES health): 200 when the store answers, 503 otherwise. */
@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly storage: Storage) {}

  @CatalogRoute('health')
  async health(@Res({ passthrough: true }) res: Response): Promise<CatalogRouteResult<'health'>> {
    const storage = await this.pingStorage();
    if (storage !== 'up') res.status(503);
    return { status: storage === 'up' ? 'ok' : 'degraded', storage, storage_kind: this.storage.kind, uptime_seconds: Math.round((Date.now() - STARTED) / 1000) };
  }

  private async pingStorage(): Promise<'up' | 'down'> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS)));
    try {
      await Promise.race([this.storage.ping(), timeout]);
      return 'up';
    } catch {
      return 'down';
    } finally {
      clearTimeout(timer);
    }
  }
}
