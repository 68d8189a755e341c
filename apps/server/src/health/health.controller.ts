import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/decorators';
import { Storage } from '../storage/storage.port';
import { HealthResult } from './responses';

const STARTED = Date.now();
const PING_TIMEOUT_MS = 2000;

/** Liveness plus storage readiness: 200 when the store answers, 503 otherwise. */
@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly storage: Storage) {}

  @Get()
  @ApiOkResponse({ type: HealthResult })
  @ApiServiceUnavailableResponse({ type: HealthResult })
  async health(@Res({ passthrough: true }) res: Response): Promise<HealthResult> {
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
