import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { EXEC_DEFAULT_TIMEOUT_SECS, EXEC_MAX_TIMEOUT_SECS } from '@svc/common';
import { BatchTargetInput } from '../devices/dto';

/** device_exec: `device` xor `devices`, an argv array (no shell), optional stdin text. */
export class ExecInput extends BatchTargetInput {
  @ApiProperty({ type: [String], description: 'command and arguments; run directly, without a shell', example: ['uname', '-a'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(4096)
  @IsString({ each: true })
  @MaxLength(32 * 1024, { each: true })
  command: string[];

  @ApiPropertyOptional({ default: EXEC_DEFAULT_TIMEOUT_SECS, maximum: EXEC_MAX_TIMEOUT_SECS })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.001)
  @Max(EXEC_MAX_TIMEOUT_SECS)
  timeout_secs?: number;

  @ApiPropertyOptional({ description: 'text written to the command\'s stdin, then closed (stdin is closed at once when absent)' })
  @IsOptional()
  @IsString()
  stdin?: string;
}
