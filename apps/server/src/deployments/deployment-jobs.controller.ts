import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DEPLOY_LIMITS, InvalidInputError, OperationResult, RouteInput, RouteResults } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { readLargeJsonBody } from '../common/json-body.middleware';
import { RouteResponse } from '../common/operation-response.decorator';
import { Input, Operation } from '../authorization/operation.decorator';
import { DeploymentsService } from './deployments.service';
import { JobIdPipe, JobLogsQuery } from './dto';
import { JobLogsService } from './job-logs.service';

/**
 * Jobs of a deployment: device_deploy's route (its file is read on the caller's side, the body is
 * a DeployRequest, docs/runspec.md), device_undeploy, and a job's log from the device.
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
   * The body is read here, after authentication, with its own size limit (DEPLOY_LIMITS.maxRequestBytes):
   * it carries the jobs' files. OpenAPI shows no body schema for it; docs/runspec.md and
   * DEPLOY_REQUEST_SCHEMA are its contract.
   */
  @Post('devices/:device/deployments/jobs')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add or replace jobs (device_deploy)', description: 'Body: a DeployRequest {deployment_id?, mode: merge|replace, jobs, rollback?, name?} (docs/runspec.md)' })
  @RouteResponse('deployment_jobs_deploy')
  async deploy(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<RouteResults['deployment_jobs_deploy']> {
    const body = await readLargeJsonBody(req, res, DEPLOY_LIMITS.maxRequestBytes);
    if (body === undefined) throw new InvalidInputError('Request body required: a DeployRequest (docs/runspec.md)');
    return this.deployments.deploy(principal, device, body);
  }

  /** The service authorizes it (device:deploy), as it does device_deploy's route. */
  @Operation('device_undeploy', { authorizedBy: 'service' })
  undeploy(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_undeploy'>): Promise<OperationResult<'device_undeploy'>> {
    return this.deployments.undeploy(principal, input.device, input.job_id, input.deployment_id);
  }

  /** text/plain from the device, streamed (docs/deployments.md); OpenAPI cannot describe it. */
  @Get('devices/:device/deployments/jobs/:job_id/logs')
  @ApiExcludeEndpoint()
  logsOf(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('device') device: string,
    @Param('job_id', JobIdPipe) jobId: string,
    @Query() query: JobLogsQuery,
    @Res() res: Response,
  ): Promise<void> {
    return this.logs.stream(principal, device, jobId, query, res);
  }
}
