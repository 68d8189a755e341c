import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

const REF = 256;

/** [Batch] target: exactly one of the two (checked by runBatch, with a clear message). */
export class BatchTargetInput {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(REF) device?: string;
  @ApiPropertyOptional({ type: [String], maxItems: 100 }) @IsOptional() @IsArray() @ArrayNotEmpty() @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(REF, { each: true }) devices?: string[];
}

export class AuditLogsQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(40) since?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(40) until?: string;
  @ApiPropertyOptional() @IsOptional() @Type(() => Number) @IsInt({ message: 'max must be a whole number' }) max?: number;
}

export class AuditLogsInput extends BatchTargetInput {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(40) since?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(40) until?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt({ message: 'max must be a whole number' }) max?: number;
}
