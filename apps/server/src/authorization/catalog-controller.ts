import { applyDecorators, Controller, Inject, Req, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { HttpAnswer, OperationName, RouteInput } from '@svc/common';
import type { Principal, UserPrincipal } from '../auth/principal';
import { UsersOnly } from '../auth/decorators';
import type { AuthorizedTargets, OperationRequest } from './operation-guard';
import { Operation, OperationOptions } from './operation.decorator';

/** What the handler of a catalog operation is given: the caller, what OperationGuard authorized, the checked input. */
export interface OperationCall<N extends OperationName, P extends Principal = UserPrincipal> {
  /** A user, or also the admin key where the controller lets it in (`adminKey`). */
  principal: P;
  authorized: AuthorizedTargets;
  input: RouteInput<N>;
}

/** Service class → its `@Handles` methods, by operation, with the route's options. */
const HANDLERS = new Map<Function, Map<OperationName, { method: string; options: OperationOptions }>>();

/**
 * Marks a service method as the handler of a catalog operation: `catalogController(Service)`
 * serves it at the operation's route, with everything `@Operation(name)` applies (method, path,
 * capability through AccessPolicy, input schema, OpenAPI). Nothing else is written per operation.
 */
export function Handles<N extends OperationName>(name: N, options: OperationOptions = {}) {
  return <P extends Principal, R extends Promise<HttpAnswer<N>> | HttpAnswer<N>>(target: object, method: string | symbol, _descriptor: TypedPropertyDescriptor<(call: OperationCall<N, P>) => R>): void => {
    const handlers = HANDLERS.get(target.constructor) ?? new Map<OperationName, { method: string; options: OperationOptions }>();
    handlers.set(name, { method: String(method), options });
    HANDLERS.set(target.constructor, handlers);
  };
}

/**
 * A controller for the `@Handles` methods of `service` (a provider of the same module): one route
 * per operation, each bound from its catalog entry. For user tokens only, like the device routes,
 * unless `adminKey` lets the admin key in too (the organization routes).
 */
export function catalogController(service: Type, tag: string, access: { adminKey?: true } = {}): Type {
  @ApiTags(tag)
  @ApiBearerAuth()
  @applyDecorators(...(access.adminKey ? [ApiSecurity('admin-key')] : [UsersOnly()]))
  @Controller()
  class CatalogController {
    constructor(@Inject(service) readonly target: Record<string, (call: OperationCall<OperationName, Principal>) => unknown>) {}
  }
  for (const [name, { method, options }] of HANDLERS.get(service) ?? []) {
    const handler = function (this: CatalogController, request: OperationRequest) {
      return this.target[method]({ principal: request.principal, authorized: request.authorized ?? {}, input: request.input as never });
    };
    Object.defineProperty(CatalogController.prototype, name, { value: handler, writable: true, configurable: true });
    Req()(CatalogController.prototype, name, 0);
    applyDecorators(Operation(name, options))(CatalogController.prototype, name, Object.getOwnPropertyDescriptor(CatalogController.prototype, name)!);
  }
  Object.defineProperty(CatalogController, 'name', { value: `${service.name}CatalogController` });
  return CatalogController;
}
