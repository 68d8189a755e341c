import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DEPLOY_LIMITS, InvalidInputError, OperationResult, RouteResults } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { readLargeJsonBody } from '../common/json-body.middleware';
import { OperationResponse, RouteResponse } from '../common/operation-response.decorator';
import { DeploymentsService } from './deployments.service';
import { DeploymentQuery, JobIdPipe, JobLogsQuery } from './dto';
import { JobLogsService } from './job-logs.service';

/**
 * Jobs of a deployment: device_deploy's route (its file is read on the caller's side, the body is
 * a DeployRequest, docs/runspec.md), device_undeploy, and a job's log from the device.
 */
@ApiTags('deployments')
@ApiBearerAuth()
@UsersOnly()
@Controller('devices/:device/deployments/jobs')
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
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Add or replace jobs (device_deploy)', description: 'Body: a DeployRequest {deployment_id?, mode: merge|replace, jobs, rollback?, name?} (docs/runspec.md)' })
  @RouteResponse('deployment_jobs_deploy')
  async deploy(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<RouteResults['deployment_jobs_deploy']> {
    const body = await readLargeJsonBody(req, res, DEPLOY_LIMITS.maxRequestBytes);
    if (body === undefined) throw new InvalidInputError('Request body required: a DeployRequest (docs/runspec.md)');
    return this.deployments.deploy(principal, device, body);
  }

  @Delete(':job_id')
  @OperationResponse('device_undeploy')
  undeploy(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('device') device: string,
    @Param('job_id', JobIdPipe) jobId: string,
    @Query() query: DeploymentQuery,
  ): Promise<OperationResult<'device_undeploy'>> {
    return this.deployments.undeploy(principal, device, jobId, query.deployment_id);
  }

  /** text/plain from the device, streamed (docs/deployments.md); OpenAPI cannot describe it. */
  @Get(':job_id/logs')
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
