import { applyDecorators, createParamDecorator, Delete, ExecutionContext, Get, HttpCode, Patch, Post, Put, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { findOperation, HttpMethod, OperationContract, OperationName, OperationResults, pathParams, RouteResults, ServerCapability } from '@svc/common';
import { OperationResponse } from '../common/operation-response.decorator';
import { AuthorizedTargets, OPERATION, OperationGuard, OperationRequest, SERVER_CAPABILITY } from './operation-guard';

const METHODS: Record<HttpMethod, (path: string) => MethodDecorator> = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete };

/** A catalog path (`/devices/{device}/access`) as an Express route (`devices/:device/access`). */
export function expressPath(path: string): string {
  return path.replace(/^\//, '').replace(/\{([a-z_]+)\}/g, ':$1');
}

/**
 * Binds a handler to a catalog operation: the method and path of its `http` route (the controller
 * carries no prefix), its path parameters and answer in the OpenAPI document, and OperationGuard, which has
 * AccessPolicy decide the capability of the catalog entry before the handler runs. `status` is
 * the success status (200 unless given).
 */
export function Operation(name: OperationName & keyof OperationResults, options: { status?: number; or?: keyof RouteResults } = {}): MethodDecorator {
  const op: OperationContract | undefined = findOperation(name);
  if (!op?.http) throw new Error(`@Operation('${name}'): the catalog gives it no REST route`);
  const status = options.status ?? 200;
  const http = op.http;
  return applyDecorators(
    METHODS[http.method](expressPath(http.path)),
    HttpCode(status),
    OperationResponse(name, status, options.or),
    ...pathParams(http).map((param) => ApiParam({ name: param, type: String, description: (op.params as Record<string, { description: string }>)[param]?.description })),
    SetMetadata(OPERATION, name),
    UseGuards(OperationGuard),
  );
}

/** What OperationGuard authorized for this request: the route's device and organization. */
export const Authorized = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthorizedTargets => {
  return ctx.switchToHttp().getRequest<OperationRequest>().authorized ?? {};
});

/** A server administration route outside the catalog (the users API): AccessPolicy decides `capability`. */
export function ServerAdministration(capability: ServerCapability): MethodDecorator {
  return applyDecorators(SetMetadata(SERVER_CAPABILITY, capability), UseGuards(OperationGuard));
}
