import { PipeTransform } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { InvalidInputError, JOB_ID_PATTERN } from '@svc/common';

const JOB_ID = new RegExp(JOB_ID_PATTERN);

/** A job id in the path of the job logs route (outside the catalog). */
export class JobIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!JOB_ID.test(value)) throw new InvalidInputError('job_id must be a job id (1-63 of a-z 0-9 _ . -, starting with a letter or digit)');
    return value;
  }
}

export const JOB_LOGS_DEFAULT_TAIL = 100;
export const JOB_LOGS_MAX_TAIL = 10_000;

export class JobLogsQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'false', description: 'keep the answer open and stream new lines' })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'follow must be true or false' })
  follow?: 'true' | 'false';

  @ApiPropertyOptional({ default: JOB_LOGS_DEFAULT_TAIL, maximum: JOB_LOGS_MAX_TAIL, description: 'start with the last N lines' })
  @IsOptional()
  @Matches(/^(0|[1-9][0-9]{0,4})$/, { message: `tail must be a number of lines (0-${JOB_LOGS_MAX_TAIL})` })
  tail?: string;
}
