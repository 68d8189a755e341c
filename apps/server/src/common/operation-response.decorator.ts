import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiResponse, ApiResponseSchemaHost } from '@nestjs/swagger';
import { errorBodySchema, findOperation, OperationResults, RESULT_SCHEMAS, ROUTE_RESULT_SCHEMAS, routeErrors, RouteResults, SubRoute } from '@svc/common';

/** The catalog's schemas are deeply readonly (`as const`); the OpenAPI types want mutable arrays. */
type SchemaObject = ApiResponseSchemaHost['schema'];

/**
 * Documents a route's answer with the operation's result schema from the catalog, so the
 * OpenAPI document, the CLI SDK and `svc mcp` describe one and the same result. `or` names a
 * second shape the same route answers (devices_list's page when paging is asked for).
 */
export function OperationResponse(name: keyof OperationResults, status = 200, or?: keyof RouteResults): MethodDecorator {
  const schema = (or ? { oneOf: [RESULT_SCHEMAS[name], ROUTE_RESULT_SCHEMAS[or]] } : RESULT_SCHEMAS[name]) as SchemaObject;
  return ApiResponse({ status, description: findOperation(name)?.summary ?? name, schema });
}

/** The same for a route that serves no tool of the specification (RouteResults in libs/common). */
export function RouteResponse(name: keyof RouteResults, status = 200): MethodDecorator {
  return ApiResponse({ status, description: name.replace(/_/g, ' '), schema: ROUTE_RESULT_SCHEMAS[name] as SchemaObject });
}

/**
 * A route of `routes` as its catalog entry describes it: its answer in its media type (bytes,
 * NDJSON, text or JSON) and, when the handler reads the body itself, the body's media type and schema.
 */
export function SubRouteExchange(route: SubRoute, status: number): MethodDecorator {
  if (!route.answer) throw new Error(`${route.method} ${route.path}: the catalog gives it no answer`);
  const { media, result } = route.answer;
  const answer = ApiResponse({ status, description: result.replace(/_/g, ' '), content: { [media]: { schema: ROUTE_RESULT_SCHEMAS[result] as SchemaObject } } });
  if (!route.rawBody) return answer;
  return applyDecorators(answer, ApiConsumes(route.rawBody.media), ApiBody({ required: true, schema: route.rawBody.schema as SchemaObject }));
}

/** The refusals a catalog route can answer (routeErrors), each status with its codes and the one error body. */
export function ErrorResponses(route: Parameters<typeof routeErrors>[0]): MethodDecorator {
  const schema = errorBodySchema as SchemaObject;
  return applyDecorators(...[...routeErrors(route)].map(([status, codes]) => ApiResponse({ status, description: codes.join(', '), schema })));
}
