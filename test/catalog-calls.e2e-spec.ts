/**
 * Every routed operation, called exactly as the catalog describes it (httpRequestFor: path, query,
 * body), succeeds and answers what its entry's result schema says, and so do its routes of
 * `routes` and the routes outside the catalog, each with its own answer's schema. This is what the
 * CLI SDK and `svc mcp` rely on: the catalog's route, parameters and result types are the server's.
 * Raw HTTP on purpose: the requests httpRequestFor builds, and the answers' status and bodies, are
 * the contract checked.
 */
import {
  CAPABILITIES,
  findOperation,
  httpRequestFor,
  OperationContract,
  OperationName,
  OPERATIONS,
  ORG_CAPABILITIES,
  findSubRoute,
  JsonSchema,
  RouteName,
  ROUTES,
  SERVER_CAPABILITIES,
  SubRouteName,
} from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { schemaErrors } from './fixtures/json-schema';
import { pollRegistration, submitRegistration, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

const ALICE = 'alice@example.test';
const BOB = 'bob@example.test';

describe('operation catalog: calls as the catalog describes them', () => {
  // Accounts outside example.test await approval (user_approve needs one).
  const fleet = useFleet({ env: { USERS_NEED_APPROVAL: 'true', USER_AUTO_ACCEPT_DOMAINS: 'example.test' } });
  let server: TestServer;
  let alice: Caller;
  const called = new Set<OperationName>();

  beforeAll(async () => {
    server = fleet.server;
    alice = await server.login(ALICE);
    await server.api.get('/me', await server.login(BOB));
  });

  /** Calls `name` with `input` the way the SDK will; expects a 2xx whose body fits its entry's result (or the route's other answer, `alsoAnswers`). */
  async function call(name: OperationName, caller: Caller, input: Record<string, unknown>, shape: 'result' | 'alsoAnswers' = 'result'): Promise<any> {
    const op = findOperation(name) as OperationContract;
    const request = httpRequestFor(op, input);
    const query = request.query.length > 0 ? `?${new URLSearchParams(request.query)}` : '';
    const res = await server.api.call(request.method, request.path + query, caller, request.body);
    expect([name, res.status, res.status < 300 ? '' : JSON.stringify(res.body)]).toEqual([name, res.status < 300 ? res.status : 200, '']);
    expect([name, schemaErrors(shape === 'result' ? op.result : op.http!.alsoAnswers!, res.body)]).toEqual([name, []]);
    called.add(name);
    return res.body;
  }

  function fits(name: string, schema: JsonSchema, body: unknown): void {
    expect([name, schemaErrors(schema, body)]).toEqual([name, []]);
  }
  const routeAnswer = (route: RouteName) => ROUTES[route].answer.schema;
  const answerOf = (route: SubRouteName) => findSubRoute(route)!.answer!.schema;

  it('serves the whole life of a device, its shares and an organization', async () => {
    const pending = await submitRegistration(server, 'pi-1', `user:${ALICE}`);
    fits('registration_request', routeAnswer('registration_request'), { request_id: pending.requestId, fingerprint: pending.fingerprint });
    fits('registration_status', routeAnswer('registration_status'), (await pollRegistration(server, pending.requestId)).body);

    const listed = await call('devices_list', alice, {});
    expect(listed.map((item: { status: string }) => item.status)).toEqual(['pending']);
    await call('devices_approve', alice, { device: pending.requestId });
    const approved = await pollRegistration(server, pending.requestId);
    fits('registration_status', routeAnswer('registration_status'), approved.body);
    expect(approved.body.status).toBe('approved');

    const page = await call('devices_list', alice, { status: 'offline', limit: 1 }, 'alsoAnswers');
    expect(page.items).toHaveLength(1);

    expect((await call('device_status', alice, { device: 'pi-1' })).status).toBe('offline');
    expect((await call('device_status', alice, { devices: ['pi-1', 'nope'] })).results).toHaveLength(2);
    fits('device_status.one', answerOf('device_status.one'), (await server.api.get('/devices/pi-1/status', alice)).body);
    await call('device_audit_logs', alice, { device: 'pi-1', max: 5 });
    await call('device_audit_logs', alice, { devices: ['pi-1'] });
    fits('device_audit_logs.one', answerOf('device_audit_logs.one'), (await server.api.get('/devices/pi-1/audit-logs?max=5', alice)).body);

    expect(await call('device_rename', alice, { device: 'pi-1', name: 'pi one' })).toEqual({ status: 'renamed', device_id: 'pi-1', name: 'pi one' });
    expect(await call('device_show', alice, { device: 'pi one' })).toEqual({ id: 'pi-1', name: 'pi one', status: 'offline', owner: `user:${ALICE}` });
    expect(await call('device_capabilities', alice, { device: 'pi one' })).toEqual({ device_id: 'pi-1', role: 'admin', owner: true, capabilities: [...CAPABILITIES] });
    await call('device_access_add', alice, { device: 'pi-1', email_or_org_id: BOB, role: 'viewer' });
    expect(await call('device_access_list', alice, { device: 'pi-1' })).toEqual([{ email: BOB, role: 'viewer' }]);
    await call('device_access_remove', alice, { device: 'pi-1', email_or_org_id: BOB });

    await call('device_exec', alice, { devices: ['pi-1'], command: ['true'], timeout_secs: 5 });

    const created = await call('device_deployment_new', alice, { device: 'pi-1' });
    await call('device_deployment_activate', alice, { device: 'pi-1', deployment_id: created.id });
    const deployed = await server.api.post('/devices/pi-1/deployments/jobs', deployRequest([serviceJob('web')]), alice);
    fits('device_deploy.jobs', answerOf('device_deploy.jobs'), deployed.body);
    expect((await call('device_deployment_active', alice, { device: 'pi-1' })).active_deployment_id).toBe(created.id);
    expect((await call('device_deployment_show', alice, { device: 'pi-1' })).jobs).toEqual([serviceJob('web')]);
    expect((await call('device_deployment_status', alice, { device: 'pi-1' })).status).toBe('pending');
    expect((await call('device_deployment_status', alice, { devices: ['pi-1', 'nope'] })).results).toHaveLength(2);
    const copy = await call('device_deployment_clone', alice, { device: 'pi-1', deployment_id: created.id, active: false });
    expect((await call('device_deployment_list', alice, { device: 'pi-1' })).deployments).toHaveLength(2);
    await call('device_deployment_list', alice, { devices: ['pi-1'] });
    await call('device_undeploy', alice, { device: 'pi-1', job_id: 'web', deployment_id: copy.id });
    await call('device_deployment_rm', alice, { device: 'pi-1', deployment_id: copy.id });

    await call('org_create', server.admin, { id: 'acme', email: ALICE });
    await call('org_update', alice, { id: 'acme', new_id: 'acme-2' });
    expect((await call('org_list', alice, {})).map((org: { id: string }) => org.id)).toEqual(['acme-2']);
    await call('org_members_add', alice, { org_id: 'acme-2', email: BOB, role: 'viewer' });
    expect(await call('org_members_list', alice, { org_id: 'acme-2' })).toHaveLength(2);
    expect(await call('org_show', alice, { id: 'acme-2' })).toEqual({ id: 'acme-2', owner: ALICE, members: 2 });
    expect(await call('org_capabilities', alice, { org_id: 'acme-2' })).toEqual({ org_id: 'acme-2', capabilities: [...ORG_CAPABILITIES] });
    expect((await call('org_capabilities', server.admin, { org_id: 'acme-2' })).capabilities).toContain('org:view');
    expect(await call('server_capabilities', alice, {})).toEqual({ capabilities: [] });
    expect(await call('server_capabilities', server.admin, {})).toEqual({ capabilities: [...SERVER_CAPABILITIES] });
    await call('org_members_remove', alice, { org_id: 'acme-2', email: BOB });
    await call('org_devices_add', alice, { org_id: 'acme-2', device: 'pi-1' });
    expect(await call('org_devices_list', alice, { org_id: 'acme-2' })).toEqual([expect.objectContaining({ id: 'pi-1' })]);
    await call('org_devices_remove', alice, { org_id: 'acme-2', device: 'pi-1' });

    await call('devices_reject', alice, { device: 'pi-1' });
    await call('org_delete', alice, { id: 'acme-2' });

    expect(await call('account_show', alice, {})).toEqual({ kind: 'user', email: ALICE, scopes: [`user:${ALICE}`], memberships: [], admin: false });
    expect(await call('account_show', server.admin, {})).toEqual({ kind: 'admin-key' });
    const pendingUser = 'dave@elsewhere.test';
    expect((await server.api.get('/me', await server.login(pendingUser))).body.code).toBe('ACCOUNT_PENDING_APPROVAL');
    expect((await call('users_list', server.admin, { active: false })).map((user: { email: string }) => user.email)).toEqual([pendingUser]);
    expect(await call('user_approve', server.admin, { email: pendingUser })).toMatchObject({ email: pendingUser, active: true, admin: false });
    expect(await call('user_show', server.admin, { email: pendingUser })).toMatchObject({ email: pendingUser, active: true });
    expect(await call('user_admin_grant', server.admin, { email: 'carol@example.test' })).toMatchObject({ email: 'carol@example.test', active: true, admin: true });
    expect(await call('user_subject_reset', server.admin, { email: BOB })).toMatchObject({ email: BOB });
    expect((await call('users_list', server.admin, {})).length).toBe(4);

    fits('health', routeAnswer('health'), (await server.api.get('/health')).body);
    fits('auth_config', routeAnswer('auth_config'), (await server.api.get('/auth/config')).body);

    const flood = await submitRegistration(server, 'pi-2', `user:${ALICE}`);
    const rejected = await server.api.post('/devices/registrations/reject', {}, alice);
    fits('registrations_reject', routeAnswer('registrations_reject'), rejected.body);
    fits('registration_status', routeAnswer('registration_status'), (await pollRegistration(server, flood.requestId)).body);
  });

  it('has called every routed operation', () => {
    const routed = OPERATIONS.filter((op) => 'http' in op).map((op) => op.name);
    expect([...called].sort()).toEqual([...routed].sort());
  });
});
