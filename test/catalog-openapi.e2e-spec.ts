/**
 * The operation catalog (libs/common) and the server agree: every routed operation is served at
 * its method and path, with the catalog's parameters where the catalog says they travel, and has a
 * documented response. The CLI SDK and `svc mcp` are built on the catalog, so a drift here would
 * make them call routes that do not exist.
 */
import { OperationContract, OPERATIONS, paramLocation, ParamSpec, pathParams, UNROUTED_OPERATIONS } from '@svc/common';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { startTestServer, TestServer } from './fixtures/test-server';

interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string; properties?: Record<string, unknown>; required?: string[] } }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

/** `/orgs/{org_id}/members` and `/orgs/{id}/members` are the same route. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
const CATALOG: readonly OperationContract[] = OPERATIONS;

describe('operation catalog ↔ OpenAPI', () => {
  let idp: IdentityProviderHandle;
  let server: TestServer;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    server = await startTestServer(idp);
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDoc;
  });
  afterAll(async () => {
    await server?.close();
    await idp?.stop();
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

  it.each(routed.map((op) => [op.name, op] as const))('%s is served where the catalog says, with its parameters', (_name, op) => {
    const http = op.http!;
    const operation = served(http.method, http.path);
    expect(operation).toBeDefined();

    const inPath = (operation!.parameters ?? []).filter((p) => p.in === 'path');
    expect(inPath).toHaveLength(pathParams(http).length);

    const query = new Map((operation!.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.required === true]));
    const schema = operation!.requestBody?.content['application/json']?.schema;
    const body = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
    const bodyRequired = new Set(body?.required ?? []);
    const documented = (param: string, where: 'path' | 'query' | 'body') =>
      where === 'path' ? 'path' : where === 'query' ? (query.has(param) ? `query${query.get(param) ? '!' : ''}` : 'missing') : body?.properties?.[param] ? `body${bodyRequired.has(param) ? '!' : ''}` : 'missing';

    const params: Record<string, ParamSpec> = { ...op.params, ...http.extra };
    for (const [param, spec] of Object.entries(params)) {
      const where = paramLocation(http, param);
      const got = documented(param, where);
      // Documented where the catalog sends it; required there only if the tool must give it.
      expect([param, got.replace('!', '')]).toEqual([param, where]);
      if (got.endsWith('!')) expect([param, spec.required]).toEqual([param, true]);
    }
    // The route demands nothing the operation does not send.
    const demanded = [...bodyRequired, ...[...query].filter(([, required]) => required).map(([name]) => name)];
    for (const name of demanded) expect(Object.keys(params)).toContain(name);
  });

  it.each(routed.map((op) => [op.name, op] as const))('%s documents its answer', (_name, op) => {
    const operation = served(op.http!.method, op.http!.path)!;
    const ok = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.some(([, response]) => response.content !== undefined)).toBe(true);
  });

  it('documents a JSON answer for every route it serves, tools or not', () => {
    const undocumented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => !Object.entries(operation.responses).some(([status, response]) => status.startsWith('2') && response.content?.['application/json'] !== undefined))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undocumented).toEqual([]);
  });
});
