/**
 * device_access_list / add / remove over real HTTP: result shapes, role updates, refusals, what a
 * shared user gains and loses, and devices addressed by name as well as by id.
 */
import { ApiResponse, Caller } from './fixtures/api-client';
import { expectError } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import { requestRegistration, TestServer } from './fixtures/test-server';

type Entry = { email?: string; org_id?: string; role: string };
const byName = (a: Entry, b: Entry) => (a.email ?? a.org_id!).localeCompare(b.email ?? b.org_id!);

describe('device access', () => {
  const fleet = useFleet({
    env: { REGISTRATION_RATE_LIMIT: '1000' },
    users: { alice: 'alice@access.test' },
    orgs: { team: { owner: 'lead@access.test', members: { 'teammate@access.test': 'editor' } } },
    devices: { 'acc-1': { owner: 'alice', hostname: 'acc-box' } },
  });
  let server: TestServer;
  let alice: Caller;
  const as = (email: string) => server.login(email);
  const access = async (device: string, caller: Caller = alice) => {
    const res = await server.api.get(`/devices/${device}/access`, caller);
    expect(res.status).toBe(200);
    return (res.body as Entry[]).sort(byName);
  };
  const add = (device: string, who: unknown, role: unknown, caller: Caller = alice) =>
    server.api.post(`/devices/${device}/access`, { email_or_org_id: who, role }, caller);
  const remove = (device: string, who: string, caller: Caller = alice) =>
    server.api.delete(`/devices/${device}/access/${encodeURIComponent(who)}`, caller);

  /** A device approved by `approver` for `owner`, named after the hostname the runtime reported. */
  async function device(id: string, hostname: string, approver: Caller, owner = 'user:alice@access.test'): Promise<void> {
    const requestId = await requestRegistration(server, id, owner, hostname);
    expect((await server.api.post('/devices/approve', { request_id: requestId }, approver)).status).toBe(200);
  }

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
  });

  it('starts with an empty access list', async () => {
    const res = await server.api.get('/devices/acc-1/access', alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('adds users and organizations with the documented shapes', async () => {
    const added = await add('acc-1', 'bob@access.test', 'viewer');
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ status: 'added' });
    expect((await add('acc-1', 'team', 'editor')).body).toEqual({ status: 'added' });
    expect(await access('acc-1')).toEqual([
      { email: 'bob@access.test', role: 'viewer' },
      { org_id: 'team', role: 'editor' },
    ]);
  });

  it('updates the role when an entry is added again, keeping one entry', async () => {
    expect((await add('acc-1', 'Bob@Access.TEST', 'admin')).body).toEqual({ status: 'added' });
    expect((await add('acc-1', 'team', 'viewer')).body).toEqual({ status: 'added' });
    expect(await access('acc-1')).toEqual([
      { email: 'bob@access.test', role: 'admin' },
      { org_id: 'team', role: 'viewer' },
    ]);
  });

  it('removes entries with {status: removed}; a missing entry is 404', async () => {
    const removed = await remove('acc-1', 'bob@access.test');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ status: 'removed' });
    expect(await access('acc-1')).toEqual([{ org_id: 'team', role: 'viewer' }]);
    expectError(await remove('acc-1', 'bob@access.test'), 404, 'NOT_FOUND');
    expectError(await remove('acc-1', 'never@access.test'), 404, 'NOT_FOUND');
    expectError(await remove('acc-1', 'no-such-org'), 404, 'NOT_FOUND');
    expect((await remove('acc-1', 'team')).body).toEqual({ status: 'removed' });
    expect(await access('acc-1')).toEqual([]);
  });

  it('refuses sharing a device with its owner (409)', async () => {
    expectError(await add('acc-1', 'alice@access.test', 'viewer'), 409, 'CONFLICT', /already owns/);
    expectError(await add('acc-1', 'Alice@Access.test', 'admin'), 409, 'CONFLICT');
    const lead = await as('lead@access.test');
    await device('acc-team', 'acc-team', lead, 'org:team');
    expectError(await add('acc-team', 'team', 'viewer', lead), 409, 'CONFLICT', /already owns/);
    expect(await access('acc-1')).toEqual([]);
  });

  it.each([
    ['an invalid e-mail', 'a@b', 'viewer', /email_or_org_id/],
    ['text that is neither', 'not an id', 'viewer', /email_or_org_id/],
    ['an upper-case org id', 'TEAM', 'viewer', /email_or_org_id/],
    ['an empty target', '', 'viewer', /email_or_org_id/],
    ['a number as target', 42, 'viewer', /email_or_org_id/],
    ['the org-role name member', 'bob@access.test', 'member', /role must be one of admin, editor, viewer/],
    ['an unknown role', 'bob@access.test', 'owner', /role must be one of admin, editor, viewer/],
    ['a missing role', 'bob@access.test', undefined, /role must be one of admin, editor, viewer/],
  ])('refuses %s with 400', async (_name, who, role, message) => {
    expectError(await add('acc-1', who, role), 400, 'INVALID_INPUT', message);
    expect(await access('acc-1')).toEqual([]);
  });

  it('refuses a malformed target on removal with 400', async () => {
    expectError(await remove('acc-1', 'not an id'), 400, 'INVALID_INPUT', /email_or_org_id/);
    expectError(await remove('acc-1', 'a@b'), 400, 'INVALID_INPUT', /email_or_org_id/);
  });

  it('gives a shared user access, and takes it away on removal', async () => {
    const carol = await as('carol@access.test');
    expectError(await server.api.get('/devices/acc-1/status', carol), 404, 'DEVICE_NOT_FOUND', 'Device not found');
    await add('acc-1', 'carol@access.test', 'viewer');
    const status = await server.api.get('/devices/acc-1/status', carol);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ status: 'offline', health: 'unknown', uptime: null, last_seen: null });
    expect((await server.api.get('/devices', carol)).body).toEqual([{ id: 'acc-1', name: 'acc-box', status: 'offline', owner: 'user:alice@access.test' }]);
    expect(await access('acc-1', carol)).toEqual([{ email: 'carol@access.test', role: 'viewer' }]);
    expectError(await add('acc-1', 'dave@access.test', 'viewer', carol), 403, 'FORBIDDEN');

    await remove('acc-1', 'carol@access.test');
    const gone = await server.api.get('/devices/acc-1/status', carol);
    expectError(gone, 404, 'DEVICE_NOT_FOUND', 'Device not found');
    expect(gone.body.message).toBe('Device not found');
    expect((await server.api.get('/devices', carol)).body).toEqual([]);
    expectError(await server.api.get('/devices/acc-1/access', carol), 404, 'DEVICE_NOT_FOUND');
  });

  it('gives members of a shared organization access through the organization', async () => {
    const teammate = await as('teammate@access.test');
    expectError(await server.api.get('/devices/acc-1/status', teammate), 404, 'DEVICE_NOT_FOUND');
    await add('acc-1', 'team', 'viewer');
    expect((await server.api.get('/devices/acc-1/status', teammate)).status).toBe(200);
    await remove('acc-1', 'team');
    expectError(await server.api.get('/devices/acc-1/status', teammate), 404, 'DEVICE_NOT_FOUND');
  });

  it('hides the access endpoints of devices the caller cannot see', async () => {
    const mallory = await as('mallory@access.test');
    expectError(await server.api.get('/devices/acc-1/access', mallory), 404, 'DEVICE_NOT_FOUND', 'Device not found');
    expectError(await add('acc-1', 'mallory@access.test', 'admin', mallory), 404, 'DEVICE_NOT_FOUND');
    expectError(await remove('acc-1', 'carol@access.test', mallory), 404, 'DEVICE_NOT_FOUND');
    expectError(await server.api.get('/devices/no-such-device/access', alice), 404, 'DEVICE_NOT_FOUND');
  });

  describe('devices addressed by name', () => {
    beforeAll(async () => {
      await device('twin-1', 'twin', alice);
      await device('twin-2', 'twin', alice);
    });

    it('resolves a unique name like an id', async () => {
      expect((await server.api.get('/devices/acc-box/status', alice)).status).toBe(200);
      expect((await add('acc-box', 'erin@access.test', 'viewer')).body).toEqual({ status: 'added' });
      expect(await access('acc-box')).toEqual([{ email: 'erin@access.test', role: 'viewer' }]);
      expect(await access('acc-1')).toEqual([{ email: 'erin@access.test', role: 'viewer' }]);
      expect((await remove('acc-box', 'erin@access.test')).body).toEqual({ status: 'removed' });
      expect(await access('acc-1')).toEqual([]);
    });

    it('answers 409 asking for the id when two reachable devices share a name', async () => {
      for (const res of [
        await server.api.get('/devices/twin/status', alice),
        await server.api.get('/devices/twin/access', alice),
        await add('twin', 'erin@access.test', 'viewer'),
        await remove('twin', 'erin@access.test'),
      ]) {
        expectError(res, 409, 'CONFLICT', /use the device id/);
      }
      expect((await server.api.get('/devices/twin-1/status', alice)).status).toBe(200);
      expect((await add('twin-2', 'frank@access.test', 'viewer')).body).toEqual({ status: 'added' });
    });

    it('resolves the name for a caller who can reach only one of the two', async () => {
      const frank = await as('frank@access.test');
      expect((await server.api.get('/devices/twin/status', frank)).status).toBe(200);
      expect(await access('twin', frank)).toEqual([{ email: 'frank@access.test', role: 'viewer' }]);
    });
  });
});
