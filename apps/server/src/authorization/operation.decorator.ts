import { applyDecorators, createParamDecorator, Delete, ExecutionContext, Get, HttpCode, Patch, Post, Put, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBody, ApiExtension, ApiParam, ApiQuery, ApiResponse, ApiResponseSchemaHost } from '@nestjs/swagger';
import { catalogRouteErrors, findOperation, findSubRoute, HttpMethod, HttpRoute, RouteBody, inputSchema, OperationContract, OperationName, paramLocation, ParamSpec, paramSchema, routeErrors, RouteName, routeParams, ROUTES, SubRouteName } from '@svc/common';
import { ErrorResponses, OperationResponse, SubRouteExchange } from '../common/operation-response.decorator';
import { Public, UsersOnly } from '../auth/decorators';
import { AUTHORIZED_BY_SERVICE, AuthorizedTargets, OPERATION, OperationGuard, OperationRequest, SERVER_CAPABILITY, SUB_ROUTE } from './operation-guard';

const METHODS: Record<HttpMethod, (path: string) => MethodDecorator> = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete };

/** Names, in the OpenAPI document, the catalog entry a route was bound from (`device_exec`, `device_cp.upload`). */
export const CATALOG_EXTENSION = 'x-svc-operation';
/** The same for a route of the route table (ROUTES: `health`, `registration_request`). */
export const ROUTE_EXTENSION = 'x-svc-route';

/** A catalog path (`/devices/{device}/access`) as an Express route (`devices/:device/access`). */
export function expressPath(path: string): string {
  return path.replace(/^\//, '').replace(/\{([a-z_]+)\}/g, ':$1');
}

export interface OperationOptions {
  /** The success status (200 unless given). */
  status?: number;
  /**
   * The service decides the capability through AccessPolicy, because the guard cannot resolve the
   * target from the request alone: a registration request id instead of a device, leaving an
   * organization versus removing someone. [Batch] operations always decide per device (runBatch).
   */
  authorizedBy?: 'service';
}

/**
 * Binds a handler to a catalog operation, which the controller names once: the method and path
 * of its `http` route (the controller carries no prefix), its parameters and answer in the OpenAPI
 * document, and OperationGuard, which has AccessPolicy decide the capability of the catalog entry
 * and then checks the input against the route's JSON Schema (routeInputSchema) before the handler
 * runs. The handler reads the checked input with `@Input()` and what was authorized with `@Authorized()`.
 */
export function Operation(name: OperationName, options: OperationOptions = {}): MethodDecorator {
  const op: OperationContract | undefined = findOperation(name);
  if (!op?.http) throw new Error(`@Operation('${name}'): the catalog gives it no REST route`);
  const status = options.status ?? 200;
  return applyDecorators(
    METHODS[op.http.method](expressPath(op.http.path)),
    HttpCode(status),
    OperationResponse(op, status),
    ErrorResponses(routeErrors({ ...op.http, capability: op.capability, params: routeParams(op) })),
    ...documentedInput(op.http, routeParams(op)),
    ApiExtension(CATALOG_EXTENSION, name),
    SetMetadata(OPERATION, name),
    SetMetadata(AUTHORIZED_BY_SERVICE, options.authorizedBy === 'service' || op.batch),
    UseGuards(OperationGuard),
  );
}

/**
 * Binds a handler to a route of an operation's `routes` (`'device_cp.upload'`): its method and
 * path, its parameters, body, answer (in its media type) and refusals in the OpenAPI document,
 * and OperationGuard, which has AccessPolicy decide the route's capability on its `device` and
 * then checks the input against its params. The handler reads `@Authorized()` and `@Input()`.
 */
export function OperationRoute(name: SubRouteName, options: Pick<OperationOptions, 'status' | 'authorizedBy'> = {}): MethodDecorator {
  const route = findSubRoute(name);
  if (!route || route.stream) throw new Error(`@OperationRoute('${name}'): the catalog gives it no REST route`);
  return applyDecorators(
    METHODS[route.method](expressPath(route.path)),
    HttpCode(options.status ?? 200),
    SubRouteExchange(name, route, options.status ?? 200),
    ErrorResponses(routeErrors(route)),
    ...documentedInput(route, route.params),
    ApiExtension(CATALOG_EXTENSION, name),
    SetMetadata(SUB_ROUTE, name),
    SetMetadata(AUTHORIZED_BY_SERVICE, options.authorizedBy === 'service'),
    UseGuards(OperationGuard),
  );
}

/** The route's parameters in the OpenAPI document, from the same schema the guard checks. */
function documentedInput(http: Pick<HttpRoute, 'method' | 'path' | 'either'> & { rawBody?: RouteBody }, params: Record<string, ParamSpec>): MethodDecorator[] {
  const where = (location: 'path' | 'query' | 'body') => Object.entries(params).filter(([name]) => paramLocation(http, name) === location);
  const schema = (name: string) => paramSchema(name, params[name], { limits: true }) as never;
  const body = Object.fromEntries(where('body'));
  return [
    ...where('path').map(([name, spec]) => ApiParam({ name, description: spec.description, schema: schema(name) })),
    ...where('query').map(([name, spec]) => ApiQuery({ name, required: spec.required && !http.either?.includes(name), description: spec.description, schema: schema(name) })),
    ...(Object.keys(body).length > 0 ? [ApiBody({ schema: inputSchema(body, { limits: true }, http.either) as never })] : []),
  ];
}

/** What OperationGuard authorized for this request: the route's device and organization. */
export const Authorized = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthorizedTargets => {
  return ctx.switchToHttp().getRequest<OperationRequest>().authorized ?? {};
});

/** The operation's input as OperationGuard checked it against the catalog: type it `RouteInput<'name'>`. */
export const Input = createParamDecorator((_data: unknown, ctx: ExecutionContext): Record<string, unknown> => {
  const input = ctx.switchToHttp().getRequest<OperationRequest>().input;
  if (input === undefined) throw new Error('@Input() on a route without @Operation');
  return input;
});

/**
 * Binds a handler to a route of the route table (ROUTES, libs/common routes.ts): its method and
 * path, its answer (media type and schema, and the same under `alsoStatus`), its input and
 * refusals in the OpenAPI document, and who may call it: anyone (@Public), users only, or a
 * server capability that AccessPolicy decides (OperationGuard). The handler checks its input with
 * `@CheckedInput(name)` (routes.ts's params, the same ajv path as an operation's).
 */
export function CatalogRoute(name: RouteName): MethodDecorator {
  const route = ROUTES[name];
  const status = 'status' in route ? route.status : 200;
  const content = { [route.answer.media]: { schema: route.answer.schema as ApiResponseSchemaHost['schema'] } };
  const access = route.access === 'public' ? [Public()] : route.access === 'users' ? [UsersOnly()] : [SetMetadata(SERVER_CAPABILITY, route.access.server), UseGuards(OperationGuard)];
  return applyDecorators(
    METHODS[route.method](expressPath(route.path)),
    HttpCode(status),
    ApiResponse({ status, description: route.summary, content }),
    ...('alsoStatus' in route ? [ApiResponse({ status: route.alsoStatus, description: route.summary, content })] : []),
    ErrorResponses(catalogRouteErrors(route)),
    ...documentedInput(route, route.params),
    ApiExtension(ROUTE_EXTENSION, name),
    ...access,
  );
}
