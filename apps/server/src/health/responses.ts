import { ApiProperty } from '@nestjs/swagger';

/** GET /health: 200 with status ok, or 503 with status degraded when storage does not answer. */
export class HealthResult {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status: 'ok' | 'degraded';
  @ApiProperty({ enum: ['up', 'down'] }) storage: 'up' | 'down';
  @ApiProperty({ enum: ['embedded', 'mongo'] }) storage_kind: 'embedded' | 'mongo';
  @ApiProperty() uptime_seconds: number;
}
