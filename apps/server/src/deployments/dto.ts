import { PipeTransform } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, Matches } from 'class-validator';
import { DEPLOYMENT_ID_PATTERN, InvalidInputError, JOB_ID_PATTERN } from '@svc/common';
import { BatchTargetInput } from '../devices/dto';

const DEPLOYMENT_ID = new RegExp(DEPLOYMENT_ID_PATTERN);
const JOB_ID = new RegExp(JOB_ID_PATTERN);
const DEPLOYMENT_ID_MESSAGE = 'deployment_id must be a deployment id (1-128 of A-Z a-z 0-9 _ . -)';
const DEPLOYMENT_ID_DOC = { description: 'deployment id (the active deployment when omitted)' };

/** Path parameters are checked for their form before they reach storage or a message. */
export class DeploymentIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!DEPLOYMENT_ID.test(value)) throw new InvalidInputError(DEPLOYMENT_ID_MESSAGE);
    return value;
  }
}

export class JobIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!JOB_ID.test(value)) throw new InvalidInputError('job_id must be a job id (1-63 of a-z 0-9 _ . -, starting with a letter or digit)');
    return value;
  }
}

export class DeploymentStatusInput extends BatchTargetInput {
  @ApiPropertyOptional(DEPLOYMENT_ID_DOC) @IsOptional() @Matches(DEPLOYMENT_ID, { message: DEPLOYMENT_ID_MESSAGE }) deployment_id?: string;
}

export class NewDeploymentInput {
  @ApiPropertyOptional({ default: false, description: 'make it the active deployment' }) @IsOptional() @IsBoolean() active?: boolean;
}

/** device_deployment_show, device_undeploy: which deployment (the active one when omitted). */
export class DeploymentQuery {
  @ApiPropertyOptional(DEPLOYMENT_ID_DOC) @IsOptional() @Matches(DEPLOYMENT_ID, { message: DEPLOYMENT_ID_MESSAGE }) deployment_id?: string;
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
