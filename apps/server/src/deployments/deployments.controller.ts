import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { OperationResult } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { OperationResponse } from '../common/operation-response.decorator';
import { BatchTargetInput } from '../devices/dto';
import { DeploymentStatusService } from './deployment-status.service';
import { DeploymentsService } from './deployments.service';
import { DeploymentIdPipe, DeploymentQuery, DeploymentStatusInput, NewDeploymentInput } from './dto';

/**
 * device_deployment_list, _status ([Batch]), _new, _show, _active, _rm, _activate, _clone
 * (docs/deployments.md). The jobs routes (device_deploy's, device_undeploy, logs) are in
 * DeploymentJobsController.
 */
@ApiTags('deployments')
@ApiBearerAuth()
@UsersOnly()
@Controller('devices')
export class DeploymentsController {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly statuses: DeploymentStatusService,
  ) {}

  @Post('deployments/list')
  @HttpCode(200)
  @OperationResponse('device_deployment_list')
  list(@CurrentPrincipal() principal: UserPrincipal, @Body() body: BatchTargetInput): Promise<OperationResult<'device_deployment_list'>> {
    return this.deployments.list(principal, body);
  }

  @Post('deployments/status')
  @HttpCode(200)
  @OperationResponse('device_deployment_status')
  status(@CurrentPrincipal() principal: UserPrincipal, @Body() body: DeploymentStatusInput): Promise<OperationResult<'device_deployment_status'>> {
    return this.statuses.status(principal, body);
  }

  @Post(':device/deployments')
  @OperationResponse('device_deployment_new', 201)
  create(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Body() body: NewDeploymentInput): Promise<OperationResult<'device_deployment_new'>> {
    return this.deployments.create(principal, device, body.active === true);
  }

  @Get(':device/deployment')
  @OperationResponse('device_deployment_show')
  show(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string, @Query() query: DeploymentQuery): Promise<OperationResult<'device_deployment_show'>> {
    return this.deployments.show(principal, device, query.deployment_id);
  }

  @Get(':device/deployments/active')
  @OperationResponse('device_deployment_active')
  active(@CurrentPrincipal() principal: UserPrincipal, @Param('device') device: string): Promise<OperationResult<'device_deployment_active'>> {
    return this.deployments.active(principal, device);
  }

  @Delete(':device/deployments/:deployment_id')
  @OperationResponse('device_deployment_rm')
  remove(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('device') device: string,
    @Param('deployment_id', DeploymentIdPipe) deploymentId: string,
  ): Promise<OperationResult<'device_deployment_rm'>> {
    return this.deployments.remove(principal, device, deploymentId);
  }

  @Post(':device/deployments/:deployment_id/activate')
  @HttpCode(200)
  @OperationResponse('device_deployment_activate')
  activate(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('device') device: string,
    @Param('deployment_id', DeploymentIdPipe) deploymentId: string,
  ): Promise<OperationResult<'device_deployment_activate'>> {
    return this.deployments.activate(principal, device, deploymentId);
  }

  @Post(':device/deployments/:deployment_id/clone')
  @OperationResponse('device_deployment_clone', 201)
  clone(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('device') device: string,
    @Param('deployment_id', DeploymentIdPipe) deploymentId: string,
    @Body() body: NewDeploymentInput,
  ): Promise<OperationResult<'device_deployment_clone'>> {
    return this.deployments.clone(principal, device, deploymentId, body.active === true);
  }
}
