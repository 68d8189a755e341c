/**
 * The operation catalog (libs/common) and the server agree: every routed operation and every
 * route of an operation's `routes` (files, deploy, a job's log, the by-path reads) is served at
 * its method and path, bound from its catalog entry (`x-svc-operation`), with the catalog's
 * parameters where the catalog says they travel, its body and answer in their media types and
 * schemas, and its refusals; so is every route of the route table (ROUTES: sign-in discovery,
 * registration, health, events, metrics, `x-svc-route`). The CLI SDK and `svc mcp` are built on
 * the catalog, so a drift here would make them call routes that do not exist. A route written by
 * hand (bound from neither) fails the last tests unless it is the terminal's ticket route. Raw REST
 * paths on purpose: the served routes themselves are what this suite checks.
 */
import {
  catalogRouteErrors,
  CatalogRouteSpec,
  ErrorCode,
  errorBodySchema,
  OperationContract,
  OPERATIONS,
  paramLocation,
  ParamSpec,
  pathParams,
  routeErrors,
  routeParams,
  ROUTES,
  subRoutes,
  UNROUTED_OPERATIONS,
} from '@svc/common';
import { useFleet } from './fixtures/fleet';
import { TestServer } from './fixtures/test-server';

type Schema = { $ref?: string; properties?: Record<string, unknown>; required?: string[] };
interface OpenApiOperation {
  'x-svc-operation'?: string;
  'x-svc-route'?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>;
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema> };
}

/** The one route bound from neither the operations nor the route table: the terminal's tickets (its input is ROUTE_INPUTS.terminal_ticket and the streams' args). */
const OFF_CATALOG = ['POST /api/tickets'];
const ROUTE_TABLE = Object.entries(ROUTES as Record<string, CatalogRouteSpec>);

/** `/orgs/{org_id}/members` and `/orgs/{id}/members` are the same route. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
const CATALOG: readonly OperationContract[] = OPERATIONS;
const REST_SUB_ROUTES = subRoutes().filter(({ route }) => !route.stream);
/** JSON through JSON, as the document travels: drops the `undefined` the catalog's objects may hold. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('operation catalog ↔ OpenAPI', () => {
  const fleet = useFleet({});
  let server: TestServer;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    server = fleet.server;
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDoc;
  });

  const routed = CATALOG.filter((op) => op.http !== undefined);

  it('routes every operation except the listed ones, and lists only unrouted ones', () => {
    const unrouted = CATALOG.filter((op) => op.http === undefined).map((op) => op.name);
    expect(unrouted.sort()).toEqual([...UNROUTED_OPERATIONS].sort());
  });

  function served(method: string, path: string): OpenApiOperation | undefined {
    const key = Object.keys(doc.paths).find((p) => shape(p) === shape(path));
    return key ? doc.paths[key][method.toLowerCase()] : undefined;
  }

  /** Each parameter documented where the catalog sends it, required there only if the caller must give it, nothing else demanded. */
  function expectParameters(operation: OpenApiOperation, route: Parameters<typeof paramLocation>[0] & { either?: readonly string[] }, params: Record<string, ParamSpec>): void {
    const inPath = (operation.parameters ?? []).filter((p) => p.in === 'path');
    expect(inPath.map((p) => p.name).sort()).toEqual(pathParams(route).sort());

    const query = new Map((operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.required === true]));
    const schema = route.rawBody ? undefined : operation.requestBody?.content['application/json']?.schema;
    const body = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
    const bodyRequired = new Set(body?.required ?? []);
    // A dotted name (device_info.hostname) is a field of a nested object.
    const inBody = (param: string) => param.split('.').reduce<Schema | undefined>((schema, key) => schema?.properties?.[key] as Schema | undefined, body);
    const documented = (param: string, where: 'path' | 'query' | 'body') =>
      where === 'path' ? 'path' : where === 'query' ? (query.has(param) ? `query${query.get(param) ? '!' : ''}` : 'missing') : inBody(param) ? `body${bodyRequired.has(param) ? '!' : ''}` : 'missing';

    for (const [param, spec] of Object.entries(params)) {
      const where = paramLocation(route, param);
      const got = documented(param, where);
      expect([param, got.replace('!', '')]).toEqual([param, where]);
      if (got.endsWith('!')) expect([param, spec.required]).toEqual([param, true]);
    }
    const demanded = [...bodyRequired, ...[...query].filter(([, required]) => required).map(([name]) => name)];
    for (const name of demanded) expect(Object.keys(params).map((param) => param.split('.')[0])).toContain(name);
  }

  /** Exactly the catalog's refusals (routeErrors, catalogRouteErrors), each status with the one error body; `answers`: a status that is no refusal (/health's 503). */
  function expectErrors(operation: OpenApiOperation, expected: Map<number, ErrorCode[]>, answers: number[] = []): void {
    const documented = Object.entries(operation.responses).filter(([status]) => !status.startsWith('2') && !answers.includes(Number(status)));
    expect(documented.map(([status, response]) => [Number(status), response.description]).sort()).toEqual([...expected].map(([status, codes]) => [status, codes.join(', ')]).sort());
    // A refusal is JSON whatever the route answers on success (an NDJSON route lists it under its media type too).
    for (const [, response] of documented) expect(response.content?.['application/json']).toEqual({ schema: plain(errorBodySchema) });
  }

  it.each(routed.map((op) => [op.name, op] as const))('%s is served where the catalog says, with its parameters', (name, op) => {
    const operation = served(op.http!.method, op.http!.path);
    expect(operation?.['x-svc-operation']).toBe(name);
    expectParameters(operation!, op.http!, routeParams(op));
  });

  it.each(routed.map((op) => [op.name, op] as const))('%s documents the catalog\'s answer and refusals', (name, op) => {
    const operation = served(op.http!.method, op.http!.path)!;
    const ok = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    expect(ok).toHaveLength(1);
    const schema = ok[0][1].content?.['application/json']?.schema as { oneOf?: unknown[] };
    const result = plain(op.result);
    // devices_list also answers a page when paging is asked for.
    if (op.http!.alsoAnswers) expect(schema.oneOf).toEqual([result, plain(op.http!.alsoAnswers)]);
    else expect(schema).toEqual(result);
    expectErrors(operation, routeErrors({ ...op.http!, capability: op.capability, params: routeParams(op) }));
  });

  it.each(REST_SUB_ROUTES.map(({ name, route }) => [name, route] as const))('route %s is served where the catalog says, with its parameters, body, answer and refusals', (name, route) => {
    const operation = served(route.method, route.path);
    expect(operation?.['x-svc-operation']).toBe(name);
    expectParameters(operation!, route, route.params);

    if (route.rawBody) expect(operation!.requestBody?.content).toEqual({ [route.rawBody.media]: { schema: plain(route.rawBody.schema) } });
    const ok = Object.entries(operation!.responses).filter(([status]) => status.startsWith('2'));
    expect(ok.map(([, response]) => response.content)).toEqual([{ [route.answer!.media]: { schema: plain(route.answer!.schema) } }]);
    expectErrors(operation!, routeErrors(route));
  });

  it.each(ROUTE_TABLE)('route table %s is served where it says, with its input, answer and refusals', (name, route) => {
    const operation = served(route.method, route.path);
    expect(operation?.['x-svc-route']).toBe(name);
    expectParameters(operation!, route, route.params);
    const ok = Object.entries(operation!.responses).filter(([status]) => !Object.hasOwn(Object.fromEntries(catalogRouteErrors(route)), status));
    const content = { [route.answer.media]: { schema: plain(route.answer.schema) } };
    expect(ok).toEqual([route.status ?? 200, ...(route.alsoStatus ? [route.alsoStatus] : [])].map((status) => [String(status), expect.objectContaining({ content })]));
    expectErrors(operation!, catalogRouteErrors(route), route.alsoStatus ? [route.alsoStatus] : []);
  });

  it('serves nothing but the catalog\'s routes and the route table\'s, bound from their entries, and the ticket route', () => {
    const catalog = new Map<string, string>([
      ...routed.map((op) => [`${op.http!.method} ${shape(op.http!.path)}`, op.name] as [string, string]),
      ...REST_SUB_ROUTES.map(({ name, route }) => [`${route.method} ${shape(route.path)}`, name] as [string, string]),
      ...ROUTE_TABLE.map(([name, route]) => [`${route.method} ${shape(route.path)}`, name] as [string, string]),
    ]);
    const offCatalog = new Set(OFF_CATALOG.map((route) => route.replace(/\{[^}]+\}/g, '{}')));
    const strays = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .map(([method, operation]) => ({ route: `${method.toUpperCase()} ${shape(path)}`, bound: operation['x-svc-operation'] ?? operation['x-svc-route'] }))
        .filter(({ route, bound }) => (bound === undefined ? !offCatalog.has(route) : catalog.get(route) !== bound))
        .map(({ route, bound }) => `${route}${bound ? ` (bound as ${bound})` : ''}`),
    );
    expect(strays).toEqual([]);
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${shape(path)}`)));
    expect([...offCatalog].filter((route) => !documented.has(route))).toEqual([]);
    // Every catalog route is in the document (the it.each above checks each; this counts them).
    const bound = Object.values(doc.paths).flatMap((operations) => Object.values(operations).map((operation) => operation['x-svc-operation'] ?? operation['x-svc-route'])).filter((name) => name !== undefined);
    expect(bound.sort()).toEqual([...catalog.values()].sort());
  });

  it('documents an answer for every route it serves, tools or not', () => {
    const undocumented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => !Object.entries(operation.responses).some(([status, response]) => status.startsWith('2') && response.content !== undefined))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undocumented).toEqual([]);
  });
});
