/**
 * Every operation of the catalog, and every client stream, × every kind of caller → allowed,
 * not-found or forbidden, GENERATED: the rows (fixtures/authorization-rows.ts) say how each
 * operation is called and which rule of the role table decides it; the expected outcome per persona
 * is computed from libs/common's roles.ts and access.ts (fixtures/authorization-expectations.ts).
 * Calls go through the CLI's SDK by name, as `svc` and `svc mcp` make them. A new operation, or a
 * new route or client stream in an entry's `routes`, fails the first tests until it has a row.
 *
 * One server, one runtime (the `live` device, for streams, files and exec), devices without a
 * runtime for the rest. Every device is owned by owner@x.test, shared with an editor, a viewer and
 * the organization `acme` as admin. root@x.test is a server administrator and not a member of
 * `acme`: admin is not a device credential, so it sees devices only as the stranger it is.
 */
import { Server } from 'node:net';
import { join } from 'node:path';
import { AnyCapability, capabilityOf, findOperation, findSubRoute, httpRequestFor, OperationContract, OPERATIONS, ParamSpec, subRoutes } from '@svc/common';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { eventually } from './fixtures/eventually';
import { DEVICE_OWNER, DEVICE_SHARES, expectedCapabilities, expectedOutcome, ORG, ORG_OWNER, outcomeOf, PERSONAS } from './fixtures/authorization-expectations';
import { CallContext, MATRIX_ROWS, Rule, scratchDirectory, startQuietService } from './fixtures/authorization-rows';
import { expectRefused } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import { requestRegistration } from './fixtures/test-server';

const personaNames = Object.keys(PERSONAS);
const LIVE = 'matrix-live';
const SHARED = 'matrix-shared';
/** A job of the live device, so that reading its log reaches the device (device_deploy.job_logs). */
const LIVE_JOB = 'matrix-log';

describe('authorization matrix (generated from the catalog and the role table)', () => {
  const members = Object.fromEntries(personaNames.filter((p) => PERSONAS[p].orgRole && PERSONAS[p].email !== ORG_OWNER).map((p) => [p, PERSONAS[p].orgRole!]));
  const shares = Object.fromEntries(Object.entries(DEVICE_SHARES).map(([who, role]) => [who.includes('@') ? personaOf(who) : `org:${who}`, role]));
  // Made now: the runtime's --docker-socket points into it.
  const scratch = scratchDirectory();
  const engineSocket = join(scratch.path, 'engine.sock');
  const fleet = useFleet({
    env: { USERS_NEED_APPROVAL: 'true', USER_AUTO_ACCEPT_DOMAINS: 'x.test', ADMIN_EMAILS: 'root@x.test' },
    users: Object.fromEntries(personaNames.map((p) => [p, PERSONAS[p].email])),
    orgs: { [ORG]: { owner: personaOf(ORG_OWNER), members } },
    devices: {
      [LIVE]: { owner: personaOf(DEVICE_OWNER), shares, runtime: { args: ['--docker-socket', engineSocket] } },
      [SHARED]: { owner: personaOf(DEVICE_OWNER), shares },
    },
  });
  let quiet: Server;
  let engine: Server;
  let counter = 0;

  beforeAll(async () => {
    quiet = await startQuietService();
    engine = await startQuietService(engineSocket);
    // The read routes answer about the active deployment: give the shared device one.
    const owner = fleet.user('device owner');
    await owner.run('device_deployment_new', { device: SHARED, active: true });
    await owner.client.deploy(LIVE, deployRequest([serviceJob(LIVE_JOB)]));
    await eventually(`the log of ${LIVE_JOB} on ${LIVE}`, async () => (await owner.client.deploymentLogs(LIVE, LIVE_JOB, { tail: 1 })).destroy());
  });
  afterAll(async () => {
    quiet?.close();
    engine?.close();
    scratch.remove();
  });

  async function freshDevice(): Promise<string> {
    const id = `matrix-${++counter}`;
    await fleet.addDevice(id, { owner: personaOf(DEVICE_OWNER), shares });
    return id;
  }

  async function freshOrg(): Promise<string> {
    const id = `org-${++counter}`;
    await fleet.admin.run('org_create', { id, email: ORG_OWNER });
    for (const [persona, role] of Object.entries(members)) await fleet.admin.run('org_members_add', { org_id: id, email: PERSONAS[persona].email, role });
    return id;
  }

  /** A device of `persona`'s own; an account awaiting approval cannot approve one: it gets another's (it is refused before any device matters). */
  async function ownDevice(persona: string): Promise<string> {
    if (PERSONAS[persona].inactive) return freshDevice();
    const id = `own-${++counter}`;
    await fleet.addDevice(id, { owner: persona });
    return id;
  }

  async function context(target: string, persona: string): Promise<CallContext> {
    const device = target === 'live' ? LIVE : target === 'fresh-device' ? await freshDevice() : target === 'own-device' ? await ownDevice(persona) : SHARED;
    const org = target === 'fresh-org' ? await freshOrg() : ORG;
    return {
      device,
      org,
      owner: fleet.user('device owner'),
      scratch: scratch.path,
      echoPort: (quiet.address() as { port: number }).port,
      pendingRegistration: () => requestRegistration(fleet.server, `pending-${++counter}`, `user:${DEVICE_OWNER}`),
      extraMember: async () => {
        const email = `leaver-${++counter}@x.test`;
        await fleet.admin.run('org_members_add', { org_id: org, email, role: 'viewer' });
        return email;
      },
      liveJob: LIVE_JOB,
    };
  }

  it('has a row for every operation of the catalog', () => {
    const covered = new Set(MATRIX_ROWS.map((row) => row.operation).filter(Boolean));
    expect(OPERATIONS.map((op) => op.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  it("has a row for every route of an entry's `routes` and every client stream", () => {
    const covered = new Set(MATRIX_ROWS.flatMap((row) => row.routes ?? []));
    expect(subRoutes().map((route) => route.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  it('checks each route of `routes` by the capability its catalog entry names', () => {
    const drifted = MATRIX_ROWS.flatMap((row) => (row.routes ?? []).map((name) => [row, name] as const))
      .filter(([row, name]) => typeof row.rule !== 'object' || 'org' in row.rule || row.rule.device !== findSubRoute(name)!.capability)
      .map(([row, name]) => `${row.name}: row ${JSON.stringify(row.rule)}, ${name} ${findSubRoute(name)!.capability}`);
    expect(drifted).toEqual([]);
  });

  it("checks each operation by the capability its catalog entry names (the one the server's guard enforces)", () => {
    const named = (rule: Rule): AnyCapability[] => (typeof rule === 'string' ? [] : 'org' in rule ? [rule.org, ...(rule.device ? [rule.device] : [])] : [rule.device]);
    const catalogs = (capability: ReturnType<typeof capabilityOf>): AnyCapability[] =>
      capability === null ? [] : typeof capability === 'string' ? [capability] : Array.isArray(capability) ? [...capability] : Object.values(capability as object);
    const drifted = MATRIX_ROWS.filter((row) => row.operation && typeof row.rule === 'object')
      .filter((row) => !(row.listing && capabilityOf(row.operation!) === null))
      .filter((row) => !named(row.rule).every((capability) => catalogs(capabilityOf(row.operation!)).includes(capability)))
      .map((row) => `${row.name}: row ${JSON.stringify(row.rule)}, catalog ${JSON.stringify(capabilityOf(row.operation!))}`);
    expect(drifted).toEqual([]);
  });

  const cases = MATRIX_ROWS.flatMap((row) => personaNames.map((persona) => [row.name, persona, expectedOutcome(row.rule, PERSONAS[persona]), row] as const));

  it.each(cases)('%s as %s → %s', async (_name, persona, expected, row) => {
    const ctx = await context(row.target, persona);
    const answer = await row.call(fleet.user(persona), ctx);
    // A device of the caller's own goes again, so that listings hold only the matrix's devices.
    if (row.target === 'own-device' && !PERSONAS[persona].inactive) await fleet.user(persona).run('devices_reject', { device: ctx.device });
    expect(outcomeOf(answer)).toBe(expected);
  });

  // Beyond allowed or not: what the *_capabilities operations answer is the role table's own answer.
  it.each(personaNames.filter((p) => !PERSONAS[p].inactive))('answers %s its capabilities on the device, the organization and the server as the role table gives them', async (persona) => {
    const user = fleet.user(persona);
    const device = await user.attempt('device_capabilities', { device: SHARED });
    const org = await user.attempt('org_capabilities', { org_id: ORG });
    const server = await user.attempt('server_capabilities', {});
    expect({
      device: device.ok ? { role: device.result.role, owner: device.result.owner, capabilities: device.result.capabilities } : outcomeOf(device),
      org: org.ok ? org.result.capabilities : outcomeOf(org),
      server: server.ok ? server.result.capabilities : outcomeOf(server),
    }).toEqual(Object.fromEntries(Object.entries(expectedCapabilities(PERSONAS[persona])).map(([target, answer]) => [target, answer ?? 'not-found'])));
  });

  it('answers the admin key every server capability and its capabilities on an organization, as a server administrator', async () => {
    const { admin } = fleet;
    expect(await admin.run('server_capabilities', {})).toEqual({ capabilities: expectedCapabilities(PERSONAS['server admin']).server });
    expect(await admin.run('org_capabilities', { org_id: ORG })).toEqual({ org_id: ORG, capabilities: expectedCapabilities(PERSONAS['server admin']).org });
    await expectRefused(admin.run('org_capabilities', { org_id: 'no-such-org' }), 404);
  });

  it('answers an inaccessible device exactly like a missing one', async () => {
    // Raw: the two error answers compared whole, the REST contract.
    const { server } = fleet;
    const stranger = fleet.user('stranger').caller;
    const hidden = await server.api.get(`/devices/${SHARED}/status`, stranger);
    const missing = await server.api.get('/devices/no-such-device/status', stranger);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toMatchObject({ statusCode: 404, message: 'Device not found' });
    const strip = (b: any) => ({ ...b, requestId: undefined });
    expect(strip(hidden.body)).toEqual(strip(missing.body));
  });

  it('lists only reachable devices', async () => {
    const ids = async (p: string) => (await fleet.user(p).run('devices_list', {})).map((d: { id: string }) => d.id);
    for (const persona of personaNames.filter((p) => expectedOutcome({ device: 'device:view' }, PERSONAS[p]) === 'allowed')) expect(await ids(persona)).toContain(SHARED);
    expect(await ids('stranger')).toEqual([]);
    expect(await ids('server admin')).toEqual([]);
  });

  it('lets a server admin user run the organization without reaching its devices', async () => {
    const root = fleet.user('server admin');
    expect((await root.attempt('org_members_list', { org_id: ORG })).ok).toBe(true);
    const answer = await root.attempt('org_devices_list', { org_id: ORG });
    expect(answer).toMatchObject({ ok: false, error: { status: 403, message: expect.stringMatching(/not a device credential/) } });
  });

  it('tells an inactive user that the account awaits approval', async () => {
    await expectRefused(fleet.user('inactive user').run('devices_list', {}), 403, 'ACCOUNT_PENDING_APPROVAL', /awaits approval/);
  });

  it('answers batch items the caller cannot reach with a per-item error', async () => {
    const viewer = (await fleet.user('org viewer').run('device_status', { devices: [SHARED, 'no-such-device'] })) as { results: unknown[] };
    expect(viewer.results).toEqual([
      { device: SHARED, status: 'offline', health: 'unknown', uptime: null, last_seen: null },
      { device: 'no-such-device', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
    ]);
    const stranger = (await fleet.user('stranger').run('device_status', { devices: [SHARED] })) as { results: unknown[] };
    expect(stranger.results).toEqual([{ device: SHARED, error: 'Device not found', code: 'DEVICE_NOT_FOUND' }]);
  });

  // The REST contract of every routed operation, from the catalog's routes.
  const routed = OPERATIONS.filter((op) => 'http' in op && op.http).map((op) => op.name);

  it.each(routed)('%s answers 401 without credentials', async (name) => {
    const res = await sendRoute(name, {});
    expect([res.status, res.body.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  const deviceRouted = routed.filter((name) => MATRIX_ROWS.some((row) => row.operation === name && typeof row.rule === 'object' && !('org' in row.rule)));

  it.each(deviceRouted)('%s answers 403 to the admin key (admin is not a device credential)', async (name) => {
    const res = await sendRoute(name, fleet.server.admin);
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  /** The operation's route with a placeholder for every required parameter, the device being the shared one. */
  function sendRoute(name: string, caller: { adminKey?: string }) {
    const op = findOperation(name) as OperationContract;
    const input = Object.fromEntries(
      Object.entries(op.params as Record<string, ParamSpec>)
        .filter(([param, spec]) => spec.required || param === 'device')
        .map(([param, spec]) => [param, placeholder(param, spec)]),
    );
    const request = httpRequestFor(op, input);
    const query = request.query.length > 0 ? `?${new URLSearchParams(request.query)}` : '';
    return fleet.server.api.call(request.method, request.path + query, caller, request.body);
  }
});

function placeholder(param: string, spec: ParamSpec): unknown {
  if (param === 'device') return SHARED;
  if (spec.type === 'string[]') return ['true'];
  if (spec.type === 'number') return 1;
  if (spec.type === 'boolean') return false;
  return spec.enum?.[0] ?? 'placeholder';
}

function personaOf(email: string): string {
  return personaNames.find((p) => PERSONAS[p].email === email)!;
}
