/**
 * Every device endpoint (organization device routes included) × every kind of caller → allowed,
 * not-found or forbidden.
 *
 * The device is owned by owner@x.test, shared with shared@x.test as editor and with the
 * organization `acme` as admin (so each org member's own role decides), per the spec's rules.
 * root@x.test is a server administrator (ADMIN_EMAILS) and not a member of `acme`: admin is not
 * a device credential, so it sees devices only as the stranger it is.
 */
import { startIdentityProvider, IdentityProviderHandle } from './fixtures/oidc';
import { Caller } from './fixtures/api-client';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { registerDevice, startTestServer, TestServer } from './fixtures/test-server';

type Persona = 'owner' | 'shared user' | 'org admin' | 'org member' | 'org viewer' | 'stranger' | 'server admin user' | 'inactive user' | 'admin key';
type Outcome = 'allowed' | 'not-found' | 'forbidden';

const EMAILS: Record<Exclude<Persona, 'admin key'>, string> = {
  owner: 'owner@x.test',
  'shared user': 'shared@x.test',
  'org admin': 'orgadmin@x.test',
  'org member': 'orgmember@x.test',
  'org viewer': 'orgviewer@x.test',
  stranger: 'stranger@x.test',
  'server admin user': 'root@x.test',
  'inactive user': 'waiting@elsewhere.test',
};

interface Endpoint {
  name: string;
  /** Whether the call changes the device: then each case gets a fresh device. */
  mutates: boolean;
  call(server: TestServer, caller: Caller, device: string): Promise<{ status: number; body: any }>;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'GET /devices/:d/status', mutates: false, call: (s, c, d) => s.api.get(`/devices/${d}/status`, c) },
  { name: 'POST /devices/status', mutates: false, call: (s, c, d) => s.api.post('/devices/status', { device: d }, c) },
  { name: 'GET /devices/:d/audit-logs', mutates: false, call: (s, c, d) => s.api.get(`/devices/${d}/audit-logs?max=5`, c) },
  { name: 'POST /devices/audit-logs', mutates: false, call: (s, c, d) => s.api.post('/devices/audit-logs', { device: d, max: 5 }, c) },
  { name: 'GET /devices/:d/access', mutates: false, call: (s, c, d) => s.api.get(`/devices/${d}/access`, c) },
  { name: 'POST /devices/:d/access', mutates: true, call: (s, c, d) => s.api.post(`/devices/${d}/access`, { email_or_org_id: 'friend@x.test', role: 'viewer' }, c) },
  { name: 'DELETE /devices/:d/access/:who', mutates: true, call: (s, c, d) => s.api.delete(`/devices/${d}/access/shared@x.test`, c) },
  { name: 'POST /devices/reject', mutates: true, call: (s, c, d) => s.api.post('/devices/reject', { device: d }, c) },
  { name: 'GET /orgs/acme/devices', mutates: false, call: (s, c, d) => listsDevice(s.api.get('/orgs/acme/devices', c), d) },
  { name: 'DELETE /orgs/acme/devices/:d', mutates: true, call: (s, c, d) => s.api.delete(`/orgs/acme/devices/${d}`, c) },
  { name: 'POST /orgs/acme/devices', mutates: true, call: (s, c, d) => s.api.post('/orgs/acme/devices', { device: d }, c) },
  { name: 'POST /devices/deployments/list', mutates: false, call: (s, c, d) => s.api.post('/devices/deployments/list', { device: d }, c) },
  { name: 'POST /devices/deployments/status', mutates: false, call: (s, c, d) => s.api.post('/devices/deployments/status', { device: d }, c) },
  { name: 'GET /devices/:d/deployment', mutates: false, call: (s, c, d) => s.api.get(`/devices/${d}/deployment`, c) },
  { name: 'GET /devices/:d/deployments/active', mutates: false, call: (s, c, d) => s.api.get(`/devices/${d}/deployments/active`, c) },
  { name: 'POST /devices/:d/deployments', mutates: true, call: (s, c, d) => created(s.api.post(`/devices/${d}/deployments`, { active: true }, c)) },
  { name: 'POST /devices/:d/deployments/jobs', mutates: true, call: (s, c, d) => s.api.post(`/devices/${d}/deployments/jobs`, deployRequest([serviceJob('web')]), c) },
];

/** Creating answers 201. */
async function created(pending: Promise<{ status: number; body: any }>) {
  const res = await pending;
  return res.status === 201 ? { ...res, status: 200 } : res;
}

/** A listing counts as allowed only when the device is in it. */
async function listsDevice(pending: Promise<{ status: number; body: any }>, device: string) {
  const res = await pending;
  if (res.status !== 200) return res;
  const listed = (res.body as { id: string }[]).some((d) => d.id === device);
  return listed ? res : { status: 299, body: res.body };
}

const VIEW: Record<Persona, Outcome> = {
  owner: 'allowed',
  'shared user': 'allowed',
  'org admin': 'allowed',
  'org member': 'allowed',
  'org viewer': 'allowed',
  stranger: 'not-found',
  'server admin user': 'not-found',
  'inactive user': 'forbidden',
  'admin key': 'forbidden',
};
const MANAGE: Record<Persona, Outcome> = { ...VIEW, 'shared user': 'forbidden', 'org member': 'forbidden', 'org viewer': 'forbidden' };
/** `device:deploy`: editors (the shared user, org members) too, viewers not. */
const DEPLOY: Record<Persona, Outcome> = { ...VIEW, 'org viewer': 'forbidden' };
/** Owner-only (`device:own`): the org admin here holds an admin share, which is not ownership. */
const OWN: Record<Persona, Outcome> = { ...MANAGE, 'org admin': 'forbidden' };
/** Org device routes: non-members do not see the org; server admins see it but not its devices. */
const ORG_MEMBERS: Record<Persona, Outcome> = { ...VIEW, owner: 'not-found', 'shared user': 'not-found', 'server admin user': 'forbidden' };
/** Taking a device out of an org (here: dropping the org's share) is for the org's admins. */
const ORG_ADMIN_ONLY: Record<Persona, Outcome> = { ...ORG_MEMBERS, 'org member': 'forbidden', 'org viewer': 'forbidden' };
/** Moving a device into an org needs both: org admin and owner. Nobody here is both. */
const ORG_ADMIN_AND_OWNER: Record<Persona, Outcome> = { ...ORG_ADMIN_ONLY, 'org admin': 'forbidden' };

const EXPECTED: Record<string, Record<Persona, Outcome>> = {
  'GET /devices/:d/status': VIEW,
  'POST /devices/status': VIEW,
  'GET /devices/:d/audit-logs': VIEW,
  'POST /devices/audit-logs': VIEW,
  'GET /devices/:d/access': VIEW,
  'POST /devices/:d/access': MANAGE,
  'DELETE /devices/:d/access/:who': MANAGE,
  'POST /devices/reject': OWN,
  'GET /orgs/acme/devices': ORG_MEMBERS,
  'DELETE /orgs/acme/devices/:d': ORG_ADMIN_ONLY,
  'POST /orgs/acme/devices': ORG_ADMIN_AND_OWNER,
  'POST /devices/deployments/list': VIEW,
  'POST /devices/deployments/status': VIEW,
  'GET /devices/:d/deployment': VIEW,
  'GET /devices/:d/deployments/active': VIEW,
  'POST /devices/:d/deployments': DEPLOY,
  'POST /devices/:d/deployments/jobs': DEPLOY,
};

function outcomeOf(res: { status: number; body: any }): Outcome | string {
  if (res.status === 200) return 'allowed';
  if (res.status === 404 && ['DEVICE_NOT_FOUND', 'NOT_FOUND'].includes(res.body.code)) return 'not-found';
  if (res.status === 403) return 'forbidden';
  return `unexpected ${res.status} ${JSON.stringify(res.body)}`;
}

describe('authorization matrix', () => {
  let idp: IdentityProviderHandle;
  let server: TestServer;
  const callers = {} as Record<Persona, Caller>;
  let counter = 0;

  async function freshDevice(): Promise<string> {
    const id = `matrix-${++counter}`;
    await registerDevice(server, id, 'user:owner@x.test', callers.owner);
    expect((await server.api.post(`/devices/${id}/access`, { email_or_org_id: 'shared@x.test', role: 'editor' }, callers.owner)).status).toBe(200);
    expect((await server.api.post(`/devices/${id}/access`, { email_or_org_id: 'acme', role: 'admin' }, callers.owner)).status).toBe(200);
    return id;
  }

  let sharedDevice: string;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    server = await startTestServer(idp, { USERS_NEED_APPROVAL: 'true', USER_AUTO_ACCEPT_DOMAINS: 'x.test', ADMIN_EMAILS: 'root@x.test' });
    await server.api.post('/orgs', { id: 'acme', email: 'orgadmin@x.test' }, server.admin);
    await server.api.post('/orgs/acme/members', { email: 'orgmember@x.test', role: 'editor' }, server.admin);
    await server.api.post('/orgs/acme/members', { email: 'orgviewer@x.test', role: 'viewer' }, server.admin);
    for (const [persona, email] of Object.entries(EMAILS)) callers[persona as Persona] = await server.login(email);
    callers['admin key'] = server.admin;
    sharedDevice = await freshDevice();
    // The read routes answer about the active deployment: give the shared device one.
    expect((await server.api.post(`/devices/${sharedDevice}/deployments`, { active: true }, callers.owner)).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await idp?.stop();
  });

  const personas = Object.keys(VIEW) as Persona[];
  const rows = ENDPOINTS.flatMap((endpoint) => personas.map((persona) => [endpoint.name, persona, EXPECTED[endpoint.name][persona], endpoint] as const));

  it.each(rows)('%s as %s → %s', async (_name, persona, expected, endpoint) => {
    const device = endpoint.mutates ? await freshDevice() : sharedDevice;
    const res = await endpoint.call(server, callers[persona], device);
    expect(outcomeOf(res)).toBe(expected);
    if (expected === 'not-found' && endpoint.name.startsWith('GET /devices/:d/status')) {
      expect(res.body).toMatchObject({ statusCode: 404, message: 'Device not found' });
    }
  });

  it('answers an inaccessible device exactly like a missing one', async () => {
    const hidden = await server.api.get(`/devices/${sharedDevice}/status`, callers.stranger);
    const missing = await server.api.get('/devices/no-such-device/status', callers.stranger);
    expect(hidden.status).toBe(missing.status);
    const strip = (b: any) => ({ ...b, requestId: undefined });
    expect(strip(hidden.body)).toEqual(strip(missing.body));
  });

  it('lists only reachable devices', async () => {
    const ids = async (p: Persona) => ((await server.api.get('/devices', callers[p])).body as { id: string }[]).map((d) => d.id);
    for (const persona of ['owner', 'shared user', 'org admin', 'org member', 'org viewer'] as Persona[]) expect(await ids(persona)).toContain(sharedDevice);
    expect(await ids('stranger')).toEqual([]);
    expect(await ids('server admin user')).toEqual([]);
    expect((await server.api.get('/devices', callers['inactive user'])).status).toBe(403);
    expect((await server.api.get('/devices', callers['admin key'])).status).toBe(403);
  });

  it('lets a server admin user run the organization without reaching its devices', async () => {
    const root = callers['server admin user'];
    expect((await server.api.get('/orgs/acme/members', root)).status).toBe(200);
    const res = await server.api.get('/orgs/acme/devices', root);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/not a device credential/);
  });

  it('tells an inactive user that the account awaits approval', async () => {
    const res = await server.api.get('/devices', callers['inactive user']);
    expect(res.body).toMatchObject({ statusCode: 403, code: 'ACCOUNT_PENDING_APPROVAL', message: expect.stringMatching(/awaits approval/) });
  });

  it('answers batch items the caller cannot reach with a per-item error', async () => {
    const res = await server.api.post('/devices/status', { devices: [sharedDevice, 'no-such-device'] }, callers['org viewer']);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { device: sharedDevice, status: 'offline', health: 'unknown', uptime: null, last_seen: null },
      { device: 'no-such-device', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
    ]);
    const stranger = await server.api.post('/devices/status', { devices: [sharedDevice] }, callers.stranger);
    expect(stranger.body.results).toEqual([{ device: sharedDevice, error: 'Device not found', code: 'DEVICE_NOT_FOUND' }]);
  });

  it('requires authentication on every device endpoint', async () => {
    for (const endpoint of ENDPOINTS) {
      const res = await endpoint.call(server, {}, sharedDevice);
      expect([endpoint.name, res.status, res.body.code]).toEqual([endpoint.name, 401, 'UNAUTHENTICATED']);
    }
  });
});
