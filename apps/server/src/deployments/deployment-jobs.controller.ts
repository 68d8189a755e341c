import { Controller, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DEPLOY_LIMITS, InvalidInputError, SubRouteInput, SubRouteResult } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { readLargeJsonBody } from '../common/json-body.middleware';
import { Authorized, Input, OperationRoute } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { DeploymentsService } from './deployments.service';
import { JobLogsService } from './job-logs.service';

/**
 * device_deploy's routes (`jobs`: its file is read on the caller's side, the body is a
 * DeployRequest, docs/runspec.md; `job_logs`: a job's log from the device), which read and write
 * the raw request and answer. device_undeploy is DeploymentsService's `@Handles`.
 */
@ApiTags('deployments')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class DeploymentJobsController {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly logs: JobLogsService,
  ) {}

  /**
   * The body is read here, after authorization, with its own size limit (DEPLOY_LIMITS.maxRequestBytes):
   * it carries the jobs' files. Its schema (DEPLOY_REQUEST_SCHEMA) is the catalog route's.
   */
  @OperationRoute('device_deploy.jobs')
  async deploy(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<SubRouteResult<'device_deploy.jobs'>> {
    const body = await readLargeJsonBody(req, res, DEPLOY_LIMITS.maxRequestBytes);
    if (body === undefined) throw new InvalidInputError('Request body required: a DeployRequest (docs/runspec.md)');
    return this.deployments.deploy(principal, device!.device.id, body);
  }

  /** text/plain from the device, streamed (docs/deployments.md). */
  @OperationRoute('device_deploy.job_logs')
  logsOf(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: SubRouteInput<'device_deploy.job_logs'>, @Res() res: Response): Promise<void> {
    return this.logs.stream(principal, device!.device.id, input, res);
  }
}
