import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '@svc/common';
import { AUDIT_MAX_MESSAGE } from './audit-range';

const INSTANT_DOC = { description: 'ISO 8601 date or date-time; without an offset, UTC', example: '2024-05-01T12:00:00Z' };
const MAX_DOC = { minimum: 1, maximum: LIMITS.auditLogsMaxMax, default: LIMITS.auditLogsDefaultMax };

/** Only plain decimal digits become a number: `Number()` would also take `0x10`, `1e3`, `+5`, ` 7` and the empty string. */
const decimalDigits = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value);

/**
 * `GET /devices/{device}/audit-logs`, a route outside the catalog (device_audit_logs is its [Batch]
 * POST). The range itself (real dates, since before until, max within bounds) is checked by
 * parseAuditRange.
 */
export class AuditLogsQuery {
  @ApiPropertyOptional(INSTANT_DOC) @IsOptional() @IsString() @MaxLength(40) since?: string;
  @ApiPropertyOptional(INSTANT_DOC) @IsOptional() @IsString() @MaxLength(40) until?: string;
  @ApiPropertyOptional(MAX_DOC) @IsOptional() @Transform(decimalDigits) @IsInt({ message: AUDIT_MAX_MESSAGE }) max?: number;
}
