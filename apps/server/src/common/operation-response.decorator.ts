import { ApiResponse } from '@nestjs/swagger';
import { findOperation, OperationResults, RESULT_SCHEMAS } from '@svc/common';

/**
 * Documents a route's answer with the operation's result schema from the catalog, so the
 * OpenAPI document, the CLI SDK and `svc mcp` describe one and the same result.
 */
export function OperationResponse(name: keyof OperationResults, status = 200): MethodDecorator {
  return ApiResponse({ status, description: findOperation(name)?.summary ?? name, schema: RESULT_SCHEMAS[name] });
}
