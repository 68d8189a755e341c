import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '@svc/common';
import { AUDIT_MAX_MESSAGE } from './audit-range';
import { LIST_STATUSES } from './device-list-query';
import { DeviceName } from '../common/validators/device-name.validator';

const REF = 256;

/** [Batch] target: exactly one of the two (checked by runBatch, with a clear message). */
export class BatchTargetInput {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(REF) device?: string;
  @ApiPropertyOptional({ type: [String], maxItems: 100 }) @IsOptional() @IsArray() @ArrayNotEmpty() @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(REF, { each: true }) devices?: string[];
}

const INSTANT_DOC = { description: 'ISO 8601 date or date-time; without an offset, UTC', example: '2024-05-01T12:00:00Z' };
const MAX_DOC = { minimum: 1, maximum: LIMITS.auditLogsMaxMax, default: LIMITS.auditLogsDefaultMax };

/** Only plain decimal digits become a number: `Number()` would also take `0x10`, `1e3`, `+5`, ` 7` and the empty string. */
const decimalDigits = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value);

/** The range itself (real dates, since before until, max within bounds) is checked by parseAuditRange. */
export class AuditLogsQuery {
  @ApiPropertyOptional(INSTANT_DOC) @IsOptional() @IsString() @MaxLength(40) since?: string;
  @ApiPropertyOptional(INSTANT_DOC) @IsOptional() @IsString() @MaxLength(40) until?: string;
  @ApiPropertyOptional(MAX_DOC) @IsOptional() @Transform(decimalDigits) @IsInt({ message: AUDIT_MAX_MESSAGE }) max?: number;
}

export class AuditLogsInput extends BatchTargetInput {
  @ApiPropertyOptional(INSTANT_DOC) @IsOptional() @IsString() @MaxLength(40) since?: string;
  @ApiPropertyOptional(INSTANT_DOC) @IsOptional() @IsString() @MaxLength(40) until?: string;
  @ApiPropertyOptional(MAX_DOC) @IsOptional() @IsInt({ message: AUDIT_MAX_MESSAGE }) max?: number;
}

/** devices_list filters and paging; the values' meaning is checked by parseListQuery. */
export class ListDevicesQuery {
  @ApiPropertyOptional({ description: 'Page size (1-1000); with limit or cursor the answer is {items, next_cursor}', example: '100' }) @IsOptional() @IsString() @MaxLength(8) limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page' }) @IsOptional() @IsString() @MaxLength(600) cursor?: string;
  @ApiPropertyOptional({ enum: LIST_STATUSES }) @IsOptional() @IsString() @MaxLength(16) status?: string;
  @ApiPropertyOptional({ description: 'Owner: user:<email>, org:<id>, an e-mail address or an organization id' }) @IsOptional() @IsString() @MaxLength(300) owner?: string;
  @ApiPropertyOptional({ description: 'Name prefix (case-sensitive)' }) @IsOptional() @IsString() @MaxLength(REF) name?: string;
}

/** device_rename: the new display name (rule: deviceNameProblem). */
export class RenameDeviceInput {
  @ApiProperty({ example: 'kitchen display', maxLength: 64 }) @IsString() @DeviceName() name: string;
}
