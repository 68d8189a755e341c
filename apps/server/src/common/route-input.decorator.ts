import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { RouteInputName } from '@svc/common';
import { plainRouteInput } from './operation-input';

/**
 * The input of a route outside the operations (ROUTES, and the terminal's ticket), checked against
 * its ROUTE_INPUTS entry by the same ajv path as the catalog's routes (a 400 naming every field at
 * fault): the query of a GET, else the JSON body. `@CatalogRoute` documents it.
 */
export const CheckedInput = createParamDecorator((name: RouteInputName, ctx: ExecutionContext): Record<string, unknown> => {
  const request = ctx.switchToHttp().getRequest<Request>();
  return plainRouteInput(name, request.method, { query: request.query as Record<string, unknown>, body: request.body as unknown });
});
