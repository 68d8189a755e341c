import { Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { OperationResult, RouteInput } from '@svc/common';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { Authorized, Input, Operation } from '../authorization/operation.decorator';
import type { AuthorizedTargets } from '../authorization/operation-guard';
import { DeploymentStatusService } from './deployment-status.service';
import { DeploymentsService } from './deployments.service';

/**
 * device_deployment_list, _status ([Batch]), _new, _show, _active, _rm, _activate, _clone
 * (docs/deployments.md): routes, input and capabilities from the operation catalog. The jobs
 * routes (device_deploy's, device_undeploy, logs) are in DeploymentJobsController.
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

  @Operation('device_deployment_list')
  list(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_deployment_list'>): Promise<OperationResult<'device_deployment_list'>> {
    return this.deployments.list(principal, input);
  }

  @Operation('device_deployment_status')
  status(@CurrentPrincipal() principal: UserPrincipal, @Input() input: RouteInput<'device_deployment_status'>): Promise<OperationResult<'device_deployment_status'>> {
    return this.statuses.status(principal, input);
  }

  @Operation('device_deployment_new', { status: 201 })
  create(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: RouteInput<'device_deployment_new'>): Promise<OperationResult<'device_deployment_new'>> {
    return this.deployments.create(principal, device!.device.id, input.active === true);
  }

  @Operation('device_deployment_show')
  show(@Authorized() { device }: AuthorizedTargets, @Input() input: RouteInput<'device_deployment_show'>): Promise<OperationResult<'device_deployment_show'>> {
    return this.deployments.show(device!, input.deployment_id);
  }

  @Operation('device_deployment_active')
  active(@Authorized() { device }: AuthorizedTargets): Promise<OperationResult<'device_deployment_active'>> {
    return this.deployments.active(device!.device.id);
  }

  @Operation('device_deployment_rm')
  remove(@CurrentPrincipal() principal: UserPrincipal, @Authorized() { device }: AuthorizedTargets, @Input() input: RouteInput<'device_deployment_rm'>): Promise<OperationResult<'device_deployment_rm'>> {
    return this.deployments.remove(principal, device!.device.id, input.deployment_id);
  }

  @Operation('device_deployment_activate')
  activate(
    @CurrentPrincipal() principal: UserPrincipal,
    @Authorized() { device }: AuthorizedTargets,
    @Input() input: RouteInput<'device_deployment_activate'>,
  ): Promise<OperationResult<'device_deployment_activate'>> {
    return this.deployments.activate(principal, device!.device.id, input.deployment_id);
  }

  @Operation('device_deployment_clone', { status: 201 })
  clone(
    @CurrentPrincipal() principal: UserPrincipal,
    @Authorized() { device }: AuthorizedTargets,
    @Input() input: RouteInput<'device_deployment_clone'>,
  ): Promise<OperationResult<'device_deployment_clone'>> {
    return this.deployments.clone(principal, device!.device.id, input.deployment_id, input.active === true);
  }
}
