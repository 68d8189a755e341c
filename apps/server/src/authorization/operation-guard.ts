import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { capabilitiesOf, findOperation, findSubRoute, HttpRoute, InvalidInputError, isDeviceCapability, isOrgCapability, OperationContract, OperationName, paramLocation, ServerCapability, SubRouteName } from '@svc/common';
import type { Principal } from '../auth/principal';
import { OrgRecord } from '../storage/records';
import { operationInput, subRouteInput } from '../common/operation-input';
import { AccessPolicy, AuthorizedDevice } from './access-policy.service';

export const OPERATION = 'svc:operation';
export const SUB_ROUTE = 'svc:subRoute';
export const SERVER_CAPABILITY = 'svc:serverCapability';
export const AUTHORIZED_BY_SERVICE = 'svc:authorizedByService';

/** What OperationGuard resolved for the handler: the route's device and organization, authorized. */
export interface AuthorizedTargets {
  device?: AuthorizedDevice;
  org?: OrgRecord;
}

export interface OperationRequest {
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  authorized?: AuthorizedTargets;
  /** The operation's input, checked against the catalog's schema. */
  input?: Record<string, unknown>;
}

/**
 * Before the handler of an `@Operation` route runs: the capabilities its catalog entry names,
 * decided by AccessPolicy on the route's `org_id` / `id` (organization), `device` (device) and on
 * the server, in the entry's order (unless its service decides them: [Batch] operations per device,
 * `authorizedBy: 'service'`); then the input, checked against the catalog's JSON Schema
 * (operationInput). What it resolved is handed to the handler (`@Authorized()`, `@Input()`).
 * A route of an operation's `routes` (`@OperationRoute`) has its own capability on its `device`.
 * A route of the route table that needs a server capability (`@CatalogRoute('metrics')`) names it instead.
 */
@Injectable()
export class OperationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly policy: AccessPolicy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.get<OperationName | undefined>(OPERATION, context.getHandler());
    const request = context.switchToHttp().getRequest<OperationRequest>();
    const serverCapability = this.reflector.get<ServerCapability | undefined>(SERVER_CAPABILITY, context.getHandler());
    if (serverCapability) {
      await this.policy.requireServer(request.principal, serverCapability);
      return true;
    }
    const subRoute = this.reflector.get<SubRouteName | undefined>(SUB_ROUTE, context.getHandler());
    if (subRoute) {
      const route = findSubRoute(subRoute)!;
      if (!this.reflector.get<boolean | undefined>(AUTHORIZED_BY_SERVICE, context.getHandler())) {
        request.authorized = { device: await this.policy.requireDevice(request.principal, target(route, request, ['device']), route.capability) };
      }
      request.input = subRouteInput(subRoute, route, request);
      return true;
    }
    const op: OperationContract | undefined = name ? findOperation(name) : undefined;
    if (!op?.http) throw new Error(`OperationGuard on a route without a catalog operation (${String(name)})`);
    if (!this.reflector.get<boolean | undefined>(AUTHORIZED_BY_SERVICE, context.getHandler())) request.authorized = await this.authorize(request.principal, name, request);
    request.input = operationInput(op, request);
    return true;
  }

  async authorize(principal: Principal, name: OperationName | undefined, request: Pick<OperationRequest, 'params' | 'query' | 'body'>): Promise<AuthorizedTargets> {
    const op: OperationContract | undefined = name ? findOperation(name) : undefined;
    if (!op?.http) throw new Error(`OperationGuard on a route without a catalog operation (${String(name)})`);
    const http = op.http;
    const param = (...names: string[]) => target(http, request, names);
    const needs = capabilitiesOf(op);
    if (typeof op.capability === 'object' && op.capability !== null && !Array.isArray(op.capability)) {
      throw new Error(`${op.name} needs a capability per transfer direction: its service decides it`);
    }
    const authorized: AuthorizedTargets = {};
    for (const capability of needs) {
      if (isOrgCapability(capability)) authorized.org = await this.policy.requireOrg(principal, param('org_id', 'id'), capability);
      else if (isDeviceCapability(capability)) authorized.device = await this.policy.requireDevice(principal, param('device'), capability);
      else await this.policy.requireServer(principal, capability);
    }
    return authorized;
  }
}

/** The operation parameter naming the target, from wherever the route carries it (path, query or body). */
function target(http: Pick<HttpRoute, 'method' | 'path'>, request: Pick<OperationRequest, 'params' | 'query' | 'body'>, names: string[]): string {
  const name = names.find((n) => http.path.includes(`{${n}}`)) ?? names[0];
  const where = paramLocation(http, name);
  const source = where === 'path' ? request.params : where === 'query' ? request.query : request.body;
  const value = typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[name] : undefined;
  if (typeof value !== 'string' || value.length === 0) throw new InvalidInputError(`${name} must be a non-empty string`);
  return value;
}
