import { ApiResponse, ApiResponseSchemaHost } from '@nestjs/swagger';

/** The catalog's schemas are deeply readonly (`as const`); the OpenAPI types want mutable arrays. */
type SchemaObject = ApiResponseSchemaHost['schema'];
import { findOperation, OperationResults, RESULT_SCHEMAS, ROUTE_RESULT_SCHEMAS, RouteResults } from '@svc/common';

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
