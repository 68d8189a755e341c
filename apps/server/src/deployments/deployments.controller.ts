import { Body, Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { OperationResult } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { OperationResponse } from '../common/operation-response.decorator';
import { BatchTargetInput } from '../devices/dto';
import { Authorized, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { DeploymentStatusService } from './deployment-status.service';
import { DeploymentsService } from './deployments.service';
import { DeploymentIdPipe, DeploymentQuery, DeploymentStatusInput, NewDeploymentInput } from './dto';

/**
 * device_deployment_list, _status ([Batch]), _new, _show, _active, _rm, _activate, _clone
 * (docs/deployments.md); the per-device ones bound and authorized from the operation catalog. The jobs routes (device_deploy's, device_undeploy, logs) are in
 * DeploymentJobsController.
 */
@ApiTags('deployments')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class DeploymentsController {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly statuses: DeploymentStatusService,
  ) {}

  @Post('devices/deployments/list')
  @HttpCode(200)
  @OperationResponse('device_deployment_list')
  list(@CurrentPrincipal() principal: UserPrincipal, @Body() body: BatchTargetInput): Promise<OperationResult<'device_deployment_list'>> {
    return this.deployments.list(principal, body);
  }

  @Post('devices/deployments/status')
  @HttpCode(200)
  @OperationResponse('device_deployment_status')
  status(@CurrentPrincipal() principal: UserPrincipal, @Body() body: DeploymentStatusInput): Promise<OperationResult<'device_deployment_status'>> {
    return this.statuses.status(principal, body);
  }

  @Operation('device_deployment_new', { status: 201 })
  create(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Body() body: NewDeploymentInput): Promise<OperationResult<'device_deployment_new'>> {
    return this.deployments.create(principal, device!.device.id, body.active === true);
  }

  @Operation('device_deployment_show')
  show(@Authorized() { device }: AuthorizedTargets, @Query() query: DeploymentQuery): Promise<OperationResult<'device_deployment_show'>> {
    return this.deployments.show(device!, query.deployment_id);
  }

  @Operation('device_deployment_active')
  active(@Authorized() { device }: AuthorizedTargets): Promise<OperationResult<'device_deployment_active'>> {
    return this.deployments.active(device!.device.id);
  }

  @Operation('device_deployment_rm')
  remove(
    @CurrentPrincipal() principal: UserPrincipal,
    @Authorized() { device }: AuthorizedTargets,
    @Param('deployment_id', DeploymentIdPipe) deploymentId: string,
  ): Promise<OperationResult<'device_deployment_rm'>> {
    return this.deployments.remove(principal, device!.device.id, deploymentId);
  }

  @Operation('device_deployment_activate')
  activate(
    @CurrentPrincipal() principal: UserPrincipal,
    @Authorized() { device }: AuthorizedTargets,
    @Param('deployment_id', DeploymentIdPipe) deploymentId: string,
  ): Promise<OperationResult<'device_deployment_activate'>> {
    return this.deployments.activate(principal, device!.device.id, deploymentId);
  }

  @Operation('device_deployment_clone', { status: 201 })
  clone(
    @CurrentPrincipal() principal: UserPrincipal,
    @Authorized() { device }: AuthorizedTargets,
    @Param('deployment_id', DeploymentIdPipe) deploymentId: string,
    @Body() body: NewDeploymentInput,
  ): Promise<OperationResult<'device_deployment_clone'>> {
    return this.deployments.clone(principal, device!.device.id, deploymentId, body.active === true);
  }
}
