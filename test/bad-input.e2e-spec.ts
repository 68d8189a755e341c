/**
 * Bad input on every authenticated endpoint that takes a body: missing, unknown and mistyped
 * fields, oversize and malformed bodies, [Batch] target rules; the error body's exact shape and
 * request id; unknown routes; and a 401 from every non-public route without credentials.
 * Raw REST paths on purpose: the bodies and requests here are ones no SDK call would send.
 */
import { ApiResponse, Caller } from './fixtures/api-client';
import { useFleet } from './fixtures/fleet';
import { TestServer } from './fixtures/test-server';

const ERROR_KEYS = ['code', 'error', 'message', 'requestId', 'statusCode'];

/** Exactly {statusCode, error, message, code, requestId}, the id being the X-Request-Id header. */
function expectErrorBody(res: ApiResponse, statusCode: number, code?: string, message?: string | RegExp): void {
  expect(res.status).toBe(statusCode);
  expect(Object.keys(res.body ?? {}).sort()).toEqual(ERROR_KEYS);
  expect(res.body).toMatchObject({ statusCode, error: expect.any(String), message: expect.any(String), code: expect.any(String) });
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  expect(res.body.requestId).toMatch(/^[A-Za-z0-9._-]{8,64}$/);
  if (code !== undefined) expect(res.body.code).toBe(code);
  if (message !== undefined) expect(res.body.message).toMatch(message);
}

interface BodyEndpoint {
  method: 'POST' | 'PATCH';
  path: string;
  caller: 'user' | 'admin';
  valid: Record<string, unknown>;
  missing: Record<string, unknown>;
  wrongType: Record<string, unknown>;
}

const ENDPOINTS: BodyEndpoint[] = [
  { method: 'POST', path: '/devices/approve', caller: 'user', valid: { request_id: 'req_0' }, missing: {}, wrongType: { request_id: 5 } },
  { method: 'POST', path: '/devices/reject', caller: 'user', valid: { device: 'bi-dev' }, missing: {}, wrongType: { device: ['bi-dev'] } },
  { method: 'POST', path: '/devices/status', caller: 'user', valid: { device: 'bi-dev' }, missing: {}, wrongType: { device: 5 } },
  { method: 'POST', path: '/devices/audit-logs', caller: 'user', valid: { device: 'bi-dev' }, missing: { max: 5 }, wrongType: { device: 'bi-dev', max: '5' } },
  {
    method: 'POST',
    path: '/devices/bi-dev/access',
    caller: 'user',
    valid: { email_or_org_id: 'x@bad.test', role: 'viewer' },
    missing: { role: 'viewer' },
    wrongType: { email_or_org_id: ['x@bad.test'], role: 'viewer' },
  },
  { method: 'POST', path: '/orgs', caller: 'admin', valid: { id: 'bi-new', email: 'x@bad.test' }, missing: { id: 'bi-new' }, wrongType: { id: 5, email: 'x@bad.test' } },
  { method: 'PATCH', path: '/orgs/bi-org', caller: 'user', valid: { new_id: 'bi-renamed' }, missing: {}, wrongType: { new_id: true } },
  {
    method: 'POST',
    path: '/orgs/bi-org/members',
    caller: 'user',
    valid: { email: 'x@bad.test', role: 'viewer' },
    missing: { email: 'x@bad.test' },
    wrongType: { email: 5, role: 'viewer' },
  },
  { method: 'POST', path: '/orgs/bi-org/devices', caller: 'user', valid: { device: 'bi-dev' }, missing: {}, wrongType: { device: { id: 'bi-dev' } } },
];

const PUBLIC_ROUTES = ['GET /health', 'GET /auth/config', 'POST /auth/device', 'GET /auth/device/status'];

describe('bad input', () => {
  const fleet = useFleet({ users: { alice: 'alice@bad.test' }, orgs: { 'bi-org': { owner: 'alice' } }, devices: { 'bi-dev': { owner: 'alice' } } });
  let server: TestServer;
  let alice: Caller;
  const callerOf = (e: BodyEndpoint) => (e.caller === 'admin' ? server.admin : alice);
  const send = (e: BodyEndpoint, body: unknown, raw?: string) => server.api.call(e.method, e.path, callerOf(e), raw === undefined ? body : undefined, raw);

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
  });

  afterEach(async () => {
    // Nothing above may have changed state: the org keeps its id and the device its owner.
    expect((await server.api.get('/orgs', alice)).body).toEqual([{ id: 'bi-org', owner: 'alice@bad.test', members: 1 }]);
    expect((await server.api.get('/devices', alice)).body).toEqual([{ id: 'bi-dev', name: 'bi-dev', status: 'offline', owner: 'user:alice@bad.test' }]);
  });

  const rows = ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e] as const);

  it.each(rows)('%s: missing required field → 400', async (_name, e) => {
    expectErrorBody(await send(e, e.missing), 400, 'INVALID_INPUT');
    expectErrorBody(await server.api.call(e.method, e.path, callerOf(e)), 400, 'INVALID_INPUT');
  });

  it.each(rows)('%s: extra field → 400 unknown field', async (_name, e) => {
    expectErrorBody(await send(e, { ...e.valid, extra: 1 }), 400, 'INVALID_INPUT', /unknown field extra/);
  });

  it.each(rows)('%s: wrong type → 400', async (_name, e) => {
    expectErrorBody(await send(e, e.wrongType), 400, 'INVALID_INPUT');
  });

  it.each(rows)('%s: a JSON array or a scalar instead of an object → 400', async (_name, e) => {
    expectErrorBody(await send(e, [e.valid]), 400, 'INVALID_INPUT');
    expectErrorBody(await send(e, undefined, '"text"'), 400, 'INVALID_INPUT');
  });

  it.each(rows)('%s: oversize body (> 64 KiB) → 413', async (_name, e) => {
    expectErrorBody(await send(e, { ...e.valid, padding: 'x'.repeat(70 * 1024) }), 413, 'PAYLOAD_TOO_LARGE', /too large/);
  });

  it.each(rows)('%s: malformed JSON → 400', async (_name, e) => {
    for (const raw of ['{"device": "bi-dev",', '{"a":1,}', 'nope']) {
      expectErrorBody(await send(e, undefined, raw), 400, 'INVALID_INPUT', /^Request body is not valid JSON$/);
    }
  });

  describe.each(['/devices/status', '/devices/audit-logs'])('[Batch] POST %s', (path) => {
    const post = (body: unknown) => server.api.post(path, body, alice);

    it('refuses both device and devices, and neither', async () => {
      expectErrorBody(await post({ device: 'bi-dev', devices: ['bi-dev'] }), 400, 'INVALID_INPUT', /exactly one of device or devices/);
      expectErrorBody(await post({}), 400, 'INVALID_INPUT', /exactly one of device or devices/);
    });

    it('refuses an empty list, more than 100 devices, and non-string items', async () => {
      expectErrorBody(await post({ devices: [] }), 400, 'INVALID_INPUT', /devices/);
      expectErrorBody(await post({ devices: Array.from({ length: 101 }, (_, i) => `d-${i}`) }), 400, 'INVALID_INPUT', /at most 100/);
      expectErrorBody(await post({ devices: [1] }), 400, 'INVALID_INPUT', /devices/);
      expectErrorBody(await post({ devices: [''] }), 400, 'INVALID_INPUT', /devices/);
    });

    it('accepts exactly 100 devices', async () => {
      const res = await post({ devices: ['bi-dev', ...Array.from({ length: 99 }, (_, i) => `d-${i}`)] });
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(100);
      expect(res.body.results[0]).toMatchObject({ device: 'bi-dev' });
      expect(res.body.results[1]).toEqual({ device: 'd-0', error: 'Device not found', code: 'DEVICE_NOT_FOUND' });
    });
  });

  describe('error bodies and routes', () => {
    it('answers domain errors with the same exact shape', async () => {
      expectErrorBody(await server.api.get('/devices/no-such-device/status', alice), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      expectErrorBody(await server.api.post('/orgs', { id: 'bi-org', email: 'x@bad.test' }, server.admin), 409, 'CONFLICT');
      expectErrorBody(await server.api.get('/users', alice), 403, 'FORBIDDEN');
      expectErrorBody(await server.api.get('/users', { adminKey: 'wrong' }), 401, 'UNAUTHENTICATED', 'Invalid admin key');
    });

    it('keeps a well-formed incoming X-Request-Id and echoes it in the body', async () => {
      const res = await fetch(`${server.url}/devices/no-such-device/status`, { headers: { authorization: `Bearer ${alice.token}`, 'x-request-id': 'trace-abc-12345' } });
      expect(res.headers.get('x-request-id')).toBe('trace-abc-12345');
      expect(((await res.json()) as { requestId: string }).requestId).toBe('trace-abc-12345');
      const odd = await fetch(`${server.url}/devices/no-such-device/status`, { headers: { authorization: `Bearer ${alice.token}`, 'x-request-id': 'bad id <script>' } });
      expect(odd.headers.get('x-request-id')).not.toBe('bad id <script>');
      expect(((await odd.json()) as { requestId: string }).requestId).toBe(odd.headers.get('x-request-id'));
    });

    it('answers an unknown route with 404 in the same shape, with or without credentials', async () => {
      for (const caller of [{}, alice, server.admin]) {
        expectErrorBody(await server.api.get('/no-such-route', caller), 404, 'NOT_FOUND');
        expectErrorBody(await server.api.post('/devices/bi-dev/no-such-action', {}, caller), 404, 'NOT_FOUND');
        expectErrorBody(await server.api.call('PUT', '/orgs/bi-org', caller, { new_id: 'x-y' }), 404, 'NOT_FOUND');
      }
    });
  });

  describe('authentication', () => {
    let routes: string[];

    beforeAll(async () => {
      const doc = (await server.api.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
      routes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, 'bi-x')}`));
    });

    it('the route list covers every endpoint of the tool contract', () => {
      const expected = [
        'GET /me', 'GET /users', 'POST /users/bi-x/approve', 'POST /users/bi-x/admin',
        'GET /devices', 'POST /devices/approve', 'POST /devices/reject', 'POST /devices/status', 'GET /devices/bi-x/status',
        'POST /devices/audit-logs', 'GET /devices/bi-x/audit-logs', 'GET /devices/bi-x/access', 'POST /devices/bi-x/access', 'DELETE /devices/bi-x/access/bi-x',
        'GET /orgs', 'POST /orgs', 'DELETE /orgs/bi-x', 'PATCH /orgs/bi-x', 'GET /orgs/bi-x/members', 'POST /orgs/bi-x/members',
        'DELETE /orgs/bi-x/members/bi-x', 'GET /orgs/bi-x/devices', 'POST /orgs/bi-x/devices', 'DELETE /orgs/bi-x/devices/bi-x',
      ];
      expect(routes).toEqual(expect.arrayContaining([...expected, ...PUBLIC_ROUTES]));
    });

    it('answers 401 on every non-public route without credentials or with a bad token', async () => {
      const guarded = routes.filter((r) => !PUBLIC_ROUTES.includes(r));
      expect(guarded.length).toBeGreaterThanOrEqual(24);
      for (const route of guarded) {
        const [method, path] = route.split(' ');
        const body = method === 'GET' || method === 'DELETE' ? undefined : {};
        for (const caller of [{}, { token: 'not-a-jwt' }]) {
          const res = await server.api.call(method, path, caller, body);
          expect([route, res.status]).toEqual([route, 401]);
          expectErrorBody(res, 401, 'UNAUTHENTICATED');
        }
      }
    });

    it('checks credentials before validating the body', async () => {
      for (const e of ENDPOINTS) expectErrorBody(await server.api.call(e.method, e.path, {}, e.wrongType), 401, 'UNAUTHENTICATED');
    });
  });
});
