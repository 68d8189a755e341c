/**
 * device_access_list / add / remove over real HTTP: result shapes, role updates, refusals, what a
 * shared user gains and loses, and devices addressed by name as well as by id. Operations are
 * called by name through the SDK.
 */
import { expectError, expectRefused } from './fixtures/expect-error';
import { FleetUser, useFleet } from './fixtures/fleet';
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
  let alice: FleetUser;
  const as = (email: string) => fleet.as(email);
  const access = async (device: string, caller: FleetUser = alice) => ((await caller.run('device_access_list', { device })) as Entry[]).sort(byName);
  const add = (device: string, who: unknown, role: unknown, caller: FleetUser = alice) => caller.run('device_access_add', { device, email_or_org_id: who, role });
  const remove = (device: string, who: string, caller: FleetUser = alice) => caller.run('device_access_remove', { device, email_or_org_id: who });
  const status = (device: string, caller: FleetUser = alice) => caller.route('device_status.one', { device });

  /** A device approved by `approver` for `owner`, named after the hostname the runtime reported. */
  async function device(id: string, hostname: string, approver: FleetUser, owner = 'user:alice@access.test'): Promise<void> {
    const requestId = await requestRegistration(server, id, owner, hostname);
    await approver.run('devices_approve', { device: requestId });
  }

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice');
  });

  it('starts with an empty access list', async () => {
    expect(await alice.run('device_access_list', { device: 'acc-1' })).toEqual([]);
  });

  it('adds users and organizations with the documented shapes', async () => {
    expect(await add('acc-1', 'bob@access.test', 'viewer')).toEqual({ status: 'added' });
    expect(await add('acc-1', 'team', 'editor')).toEqual({ status: 'added' });
    expect(await access('acc-1')).toEqual([
      { email: 'bob@access.test', role: 'viewer' },
      { org_id: 'team', role: 'editor' },
    ]);
  });

  it('updates the role when an entry is added again, keeping one entry', async () => {
    expect(await add('acc-1', 'Bob@Access.TEST', 'admin')).toEqual({ status: 'added' });
    expect(await add('acc-1', 'team', 'viewer')).toEqual({ status: 'added' });
    expect(await access('acc-1')).toEqual([
      { email: 'bob@access.test', role: 'admin' },
      { org_id: 'team', role: 'viewer' },
    ]);
  });

  it('removes entries with {status: removed}; a missing entry is 404', async () => {
    expect(await remove('acc-1', 'bob@access.test')).toEqual({ status: 'removed' });
    expect(await access('acc-1')).toEqual([{ org_id: 'team', role: 'viewer' }]);
    await expectRefused(remove('acc-1', 'bob@access.test'), 404, 'NOT_FOUND');
    await expectRefused(remove('acc-1', 'never@access.test'), 404, 'NOT_FOUND');
    await expectRefused(remove('acc-1', 'no-such-org'), 404, 'NOT_FOUND');
    expect(await remove('acc-1', 'team')).toEqual({ status: 'removed' });
    expect(await access('acc-1')).toEqual([]);
  });

  it('refuses sharing a device with its owner (409)', async () => {
    await expectRefused(add('acc-1', 'alice@access.test', 'viewer'), 409, 'CONFLICT', /already owns/);
    await expectRefused(add('acc-1', 'Alice@Access.test', 'admin'), 409, 'CONFLICT');
    const lead = await as('lead@access.test');
    await device('acc-team', 'acc-team', lead, 'org:team');
    await expectRefused(add('acc-team', 'team', 'viewer', lead), 409, 'CONFLICT', /already owns/);
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
  ])('refuses %s with 400', async (_name, who, role, message) => {
    await expectRefused(add('acc-1', who, role), 400, 'INVALID_INPUT', message);
    expect(await access('acc-1')).toEqual([]);
  });

  it('refuses a missing role with 400', async () => {
    // Raw: the SDK never sends a request without a required parameter.
    expectError(await server.api.post('/devices/acc-1/access', { email_or_org_id: 'bob@access.test' }, alice.caller), 400, 'INVALID_INPUT', /role must be one of admin, editor, viewer/);
    expect(await access('acc-1')).toEqual([]);
  });

  it('refuses a malformed target on removal with 400', async () => {
    await expectRefused(remove('acc-1', 'not an id'), 400, 'INVALID_INPUT', /email_or_org_id/);
    await expectRefused(remove('acc-1', 'a@b'), 400, 'INVALID_INPUT', /email_or_org_id/);
  });

  it('gives a shared user access, and takes it away on removal', async () => {
    const carol = await as('carol@access.test');
    await expectRefused(status('acc-1', carol), 404, 'DEVICE_NOT_FOUND', 'Device not found');
    await add('acc-1', 'carol@access.test', 'viewer');
    expect(await status('acc-1', carol)).toEqual({ status: 'offline', health: 'unknown', uptime: null, last_seen: null });
    expect(await carol.run('devices_list', {})).toEqual([{ id: 'acc-1', name: 'acc-box', status: 'offline', owner: 'user:alice@access.test' }]);
    expect(await access('acc-1', carol)).toEqual([{ email: 'carol@access.test', role: 'viewer' }]);
    await expectRefused(add('acc-1', 'dave@access.test', 'viewer', carol), 403, 'FORBIDDEN');

    await remove('acc-1', 'carol@access.test');
    await expectRefused(status('acc-1', carol), 404, 'DEVICE_NOT_FOUND', /^Device not found$/);
    expect(await carol.run('devices_list', {})).toEqual([]);
    await expectRefused(access('acc-1', carol), 404, 'DEVICE_NOT_FOUND');
  });

  it('gives members of a shared organization access through the organization', async () => {
    const teammate = await as('teammate@access.test');
    await expectRefused(status('acc-1', teammate), 404, 'DEVICE_NOT_FOUND');
    await add('acc-1', 'team', 'viewer');
    await status('acc-1', teammate);
    await remove('acc-1', 'team');
    await expectRefused(status('acc-1', teammate), 404, 'DEVICE_NOT_FOUND');
  });

  it('hides the access endpoints of devices the caller cannot see', async () => {
    const mallory = await as('mallory@access.test');
    await expectRefused(access('acc-1', mallory), 404, 'DEVICE_NOT_FOUND', 'Device not found');
    await expectRefused(add('acc-1', 'mallory@access.test', 'admin', mallory), 404, 'DEVICE_NOT_FOUND');
    await expectRefused(remove('acc-1', 'carol@access.test', mallory), 404, 'DEVICE_NOT_FOUND');
    await expectRefused(access('no-such-device'), 404, 'DEVICE_NOT_FOUND');
  });

  describe('devices addressed by name', () => {
    beforeAll(async () => {
      await device('twin-1', 'twin', alice);
      await device('twin-2', 'twin', alice);
    });

    it('resolves a unique name like an id', async () => {
      await status('acc-box');
      expect(await add('acc-box', 'erin@access.test', 'viewer')).toEqual({ status: 'added' });
      expect(await access('acc-box')).toEqual([{ email: 'erin@access.test', role: 'viewer' }]);
      expect(await access('acc-1')).toEqual([{ email: 'erin@access.test', role: 'viewer' }]);
      expect(await remove('acc-box', 'erin@access.test')).toEqual({ status: 'removed' });
      expect(await access('acc-1')).toEqual([]);
    });

    it('answers 409 asking for the id when two reachable devices share a name', async () => {
      for (const call of [() => status('twin'), () => access('twin'), () => add('twin', 'erin@access.test', 'viewer'), () => remove('twin', 'erin@access.test')]) {
        await expectRefused(call(), 409, 'CONFLICT', /use the device id/);
      }
      await status('twin-1');
      expect(await add('twin-2', 'frank@access.test', 'viewer')).toEqual({ status: 'added' });
    });

    it('resolves the name for a caller who can reach only one of the two', async () => {
      const frank = await as('frank@access.test');
      await status('twin', frank);
      expect(await access('twin', frank)).toEqual([{ email: 'frank@access.test', role: 'viewer' }]);
    });
  });
});
