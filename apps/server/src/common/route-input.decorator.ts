import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiBody, ApiQuery } from '@nestjs/swagger';
import type { Request } from 'express';
import { inputSchema, paramSchema, ParamSpec, ROUTE_INPUTS, RouteInputName } from '@svc/common';
import { plainRouteInput } from './operation-input';

/**
 * The input of a route outside the catalog, checked against its ROUTE_INPUTS entry by the same ajv
 * path as the catalog's routes (a 400 naming every field at fault): the query of a GET, else the
 * JSON body.
 */
export const CheckedInput = createParamDecorator((name: RouteInputName, ctx: ExecutionContext): Record<string, unknown> => {
  const request = ctx.switchToHttp().getRequest<Request>();
  return plainRouteInput(name, request.method, { query: request.query as Record<string, unknown>, body: request.body as unknown });
});

/** The same input in the OpenAPI document. */
export function DocumentedInput(name: RouteInputName, where: 'query' | 'body'): MethodDecorator {
  const params: Record<string, ParamSpec> = ROUTE_INPUTS[name];
  if (where === 'body') return ApiBody({ schema: inputSchema(params, { limits: true }) as never });
  return (target, key, descriptor) => {
    for (const [param, spec] of Object.entries(params)) ApiQuery({ name: param, required: spec.required, description: spec.description, schema: paramSchema(param, spec, { limits: true }) as never })(target, key, descriptor);
  };
}
