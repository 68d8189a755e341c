import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiResponse, ApiResponseSchemaHost } from '@nestjs/swagger';
import { ErrorCode, errorBodySchema, JsonSchema, OperationContract, SubRoute } from '@svc/common';

/** The catalog's schemas are deeply readonly (`as const`); the OpenAPI types want mutable arrays. */
type SchemaObject = ApiResponseSchemaHost['schema'];

/**
 * Documents a route's answer with the operation's result schema from its catalog entry, so the
 * OpenAPI document, the CLI SDK and `svc mcp` describe one and the same result; with the second
 * shape the route answers when its entry names one (`alsoAnswers`: devices_list's page).
 */
export function OperationResponse(op: OperationContract, status = 200): MethodDecorator {
  const also = op.http?.alsoAnswers;
  const schema = (also ? { oneOf: [op.result, also] } : op.result) as SchemaObject;
  return ApiResponse({ status, description: op.summary, schema });
}

/** The same for a route that serves no operation of the catalog. */
export function RouteResponse(description: string, schema: JsonSchema, status = 200): MethodDecorator {
  return ApiResponse({ status, description, schema: schema as SchemaObject });
}

/**
 * A route of `routes` as its catalog entry describes it: its answer in its media type (bytes,
 * NDJSON, text or JSON) and, when the handler reads the body itself, the body's media type and schema.
 */
export function SubRouteExchange(name: string, route: SubRoute, status: number): MethodDecorator {
  if (!route.answer) throw new Error(`${route.method} ${route.path}: the catalog gives it no answer`);
  const { media, schema } = route.answer;
  const answer = ApiResponse({ status, description: name, content: { [media]: { schema: schema as SchemaObject } } });
  if (!route.rawBody) return answer;
  return applyDecorators(answer, ApiConsumes(route.rawBody.media), ApiBody({ required: true, schema: route.rawBody.schema as SchemaObject }));
}

/** The refusals a route can answer (routeErrors, catalogRouteErrors), each status with its codes and the one error body. */
export function ErrorResponses(errors: Map<number, readonly ErrorCode[]>): MethodDecorator {
  const schema = errorBodySchema as SchemaObject;
  return applyDecorators(...[...errors].map(([status, codes]) => ApiResponse({ status, description: codes.join(', '), schema })));
}
