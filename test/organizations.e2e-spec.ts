/**
 * Organizations over real HTTP with real logins: org_create, org_list, org_members_*, org_update
 * (rename) and org_delete, with what follows from each for memberships, scopes and devices.
 * Moving devices in and out of organizations and sharing rules: organizations-devices.e2e-spec.ts.
 * Operations are called by name through the SDK; GET /me (no catalog entry) is called raw.
 */
import { expectRefused } from './fixtures/expect-error';
import { FleetUser, OperationClient, useFleet } from './fixtures/fleet';
import { registerDevice, TestServer } from './fixtures/test-server';

describe('organizations', () => {
  const fleet = useFleet({ env: { ADMIN_EMAILS: 'Root@Orgs.test', REGISTRATION_RATE_LIMIT: '1000' } });
  let server: TestServer;
  let admin: OperationClient;
  const as = (email: string) => fleet.as(email);
  const me = async (user: FleetUser) => (await server.api.get('/me', user.caller)).body;
  const ids = (orgs: { id: string }[]) => orgs.map((o) => o.id);

  beforeAll(() => {
    server = fleet.server;
    admin = fleet.admin;
  });

  describe('org_create', () => {
    it('creates an organization with the admin key', async () => {
      // Raw: the REST contract's 201 Created, which the SDK does not surface.
      const res = await server.api.post('/orgs', { id: 'alpha', email: 'owner@orgs.test' }, server.admin);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ status: 'created' });
    });

    it('creates an organization as an admin user from ADMIN_EMAILS (matched case-insensitively)', async () => {
      const root = await as('root@orgs.test');
      expect(await me(root)).toMatchObject({ email: 'root@orgs.test', admin: true });
      await expect(root.run('org_create', { id: 'beta', email: 'Owner@Orgs.TEST' })).resolves.toEqual({ status: 'created' });
    });

    it('refuses a normal user', async () => {
      await expectRefused((await as('normal@orgs.test')).run('org_create', { id: 'mine', email: 'normal@orgs.test' }), 403, 'FORBIDDEN');
      await expectRefused(admin.run('org_members_list', { org_id: 'mine' }), 404, 'NOT_FOUND', 'Organization not found');
    });

    it('refuses a taken id with 409', async () => {
      await expectRefused(admin.run('org_create', { id: 'alpha', email: 'else@orgs.test' }), 409, 'CONFLICT');
      expect(await admin.run('org_members_list', { org_id: 'alpha' })).toEqual([{ email: 'owner@orgs.test', role: 'admin' }]);
    });

    it.each(['A', 'x', 'Upper', 'has space', '-lead', 'a/b', 'a'.repeat(64), ''])('refuses the id %j with 400', async (id) => {
      await expectRefused(admin.run('org_create', { id, email: 'owner@orgs.test' }), 400, 'INVALID_INPUT', /id/);
    });

    it.each(['nope', 'a@b', '@orgs.test', 'two@@orgs.test', ''])('refuses the e-mail %j with 400', async (email) => {
      await expectRefused(admin.run('org_create', { id: 'bad-mail', email }), 400, 'INVALID_INPUT', /email/);
    });
  });

  describe('org_list', () => {
    it('shows a member their own organizations with member counts', async () => {
      await admin.run('org_members_add', { org_id: 'alpha', email: 'helper@orgs.test', role: 'viewer' });
      expect(await (await as('owner@orgs.test')).run('org_list', {})).toEqual([
        { id: 'alpha', owner: 'owner@orgs.test', members: 2 },
        { id: 'beta', owner: 'owner@orgs.test', members: 1 },
      ]);
      expect(await (await as('helper@orgs.test')).run('org_list', {})).toEqual([{ id: 'alpha', owner: 'owner@orgs.test', members: 2 }]);
    });

    it('shows a non-member nothing', async () => {
      expect(await (await as('nobody@orgs.test')).run('org_list', {})).toEqual([]);
    });

    it('shows the admin key and admin users every organization', async () => {
      for (const caller of [admin, await as('root@orgs.test')]) {
        expect(ids(await caller.run('org_list', {}))).toEqual(expect.arrayContaining(['alpha', 'beta']));
      }
    });
  });

  describe('org_members_list / add / remove', () => {
    const members = async (caller: OperationClient = admin) => caller.run('org_members_list', { org_id: 'crew' });
    const add = (caller: OperationClient, email: string, role: string) => caller.run('org_members_add', { org_id: 'crew', email, role });
    const remove = (caller: OperationClient, email: string) => caller.run('org_members_remove', { org_id: 'crew', email });

    beforeAll(async () => {
      await admin.run('org_create', { id: 'crew', email: 'cap@orgs.test' });
      const cap = await as('cap@orgs.test');
      for (const [email, role] of [['mate@orgs.test', 'admin'], ['deck@orgs.test', 'editor'], ['look@orgs.test', 'viewer'], ['swab@orgs.test', 'viewer']]) {
        expect(await add(cap, email, role)).toEqual({ status: 'added' });
      }
    });

    it('lists members with tool roles', async () => {
      expect(await members(await as('look@orgs.test'))).toEqual([
        { email: 'cap@orgs.test', role: 'admin' },
        { email: 'deck@orgs.test', role: 'editor' },
        { email: 'look@orgs.test', role: 'viewer' },
        { email: 'mate@orgs.test', role: 'admin' },
        { email: 'swab@orgs.test', role: 'viewer' },
      ]);
    });

    it.each(['member', 'owner', 'Admin', ''])('refuses the role %j with 400', async (role) => {
      await expectRefused(add(admin, 'new@orgs.test', role), 400, 'INVALID_INPUT', /role must be one of admin, editor, viewer/);
    });

    it('updates the role when a member is added again', async () => {
      expect(await add(await as('mate@orgs.test'), 'look@orgs.test', 'editor')).toEqual({ status: 'added' });
      expect(await members()).toContainEqual({ email: 'look@orgs.test', role: 'editor' });
      expect((await members()).filter((m) => m.email === 'look@orgs.test')).toHaveLength(1);
      await add(admin, 'look@orgs.test', 'viewer');
    });

    it('refuses members without the admin role (403) and non-members (404)', async () => {
      await expectRefused(add(await as('deck@orgs.test'), 'x@orgs.test', 'viewer'), 403, 'FORBIDDEN');
      await expectRefused(add(await as('look@orgs.test'), 'x@orgs.test', 'viewer'), 403, 'FORBIDDEN');
      await expectRefused(remove(await as('deck@orgs.test'), 'swab@orgs.test'), 403, 'FORBIDDEN');
      const stranger = await as('stranger@orgs.test');
      await expectRefused(members(stranger), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(add(stranger, 'x@orgs.test', 'viewer'), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(remove(stranger, 'swab@orgs.test'), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(admin.run('org_members_list', { org_id: 'no-such-org' }), 404, 'NOT_FOUND', 'Organization not found');
      expect((await members()).map((m) => m.email)).not.toContain('x@orgs.test');
    });

    it('lets an admin remove another member, who then loses the organization', async () => {
      const deck = await as('deck@orgs.test');
      expect((await me(deck)).scopes).toContain('org:crew');
      expect(await remove(await as('mate@orgs.test'), 'deck@orgs.test')).toEqual({ status: 'removed' });
      expect((await members()).map((m) => m.email)).not.toContain('deck@orgs.test');
      expect(await deck.run('org_list', {})).toEqual([]);
      expect((await me(deck)).scopes).toEqual(['user:deck@orgs.test']);
      await expectRefused(remove(admin, 'deck@orgs.test'), 404, 'NOT_FOUND');
    });

    it('lets a member leave', async () => {
      const swab = await as('swab@orgs.test');
      expect(await remove(swab, 'swab@orgs.test')).toEqual({ status: 'removed' });
      expect(await swab.run('org_list', {})).toEqual([]);
    });

    it('never removes or demotes the owner (409)', async () => {
      const mate = await as('mate@orgs.test');
      await expectRefused(remove(mate, 'cap@orgs.test'), 409, 'CONFLICT');
      await expectRefused(remove(admin, 'cap@orgs.test'), 409, 'CONFLICT');
      await expectRefused(remove(await as('cap@orgs.test'), 'cap@orgs.test'), 409, 'CONFLICT');
      await expectRefused(add(mate, 'cap@orgs.test', 'editor'), 409, 'CONFLICT');
      await expectRefused(add(admin, 'cap@orgs.test', 'viewer'), 409, 'CONFLICT');
      expect(await members()).toContainEqual({ email: 'cap@orgs.test', role: 'admin' });
    });
  });

  describe('org_update (rename)', () => {
    const rename = (caller: OperationClient, newId: string) => caller.run('org_update', { id: 'oldco', new_id: newId });

    beforeAll(async () => {
      await admin.run('org_create', { id: 'oldco', email: 'boss@orgs.test' });
      await admin.run('org_members_add', { org_id: 'oldco', email: 'worker@orgs.test', role: 'editor' });
      await registerDevice(server, 'ren-owned', 'org:oldco', (await as('boss@orgs.test')).caller);
      const outsider = await as('outsider@orgs.test');
      await registerDevice(server, 'ren-shared', 'user:outsider@orgs.test', outsider.caller);
      await outsider.run('device_access_add', { device: 'ren-shared', email_or_org_id: 'oldco', role: 'viewer' });
    });

    it('refuses non-admins, strangers, bad ids and taken ids, changing nothing', async () => {
      await expectRefused(rename(await as('worker@orgs.test'), 'newco'), 403, 'FORBIDDEN');
      await expectRefused(rename(await as('stranger@orgs.test'), 'newco'), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(rename(await as('boss@orgs.test'), 'Bad Id'), 400, 'INVALID_INPUT', /new_id/);
      await expectRefused(rename(await as('boss@orgs.test'), 'alpha'), 409, 'CONFLICT');
      await admin.run('org_members_list', { org_id: 'oldco' });
      expect(await admin.run('org_members_list', { org_id: 'alpha' })).toEqual([
        { email: 'helper@orgs.test', role: 'viewer' },
        { email: 'owner@orgs.test', role: 'admin' },
      ]);
    });

    it('renames everywhere: memberships, scopes, device owners and shares', async () => {
      const boss = await as('boss@orgs.test');
      const worker = await as('worker@orgs.test');
      expect(await rename(boss, 'newco')).toEqual({ status: 'updated' });

      await expectRefused(boss.run('org_members_list', { org_id: 'oldco' }), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(admin.run('org_members_list', { org_id: 'oldco' }), 404, 'NOT_FOUND');
      expect(await boss.run('org_members_list', { org_id: 'newco' })).toEqual([
        { email: 'boss@orgs.test', role: 'admin' },
        { email: 'worker@orgs.test', role: 'editor' },
      ]);
      expect(await worker.run('org_list', {})).toEqual([{ id: 'newco', owner: 'boss@orgs.test', members: 2 }]);
      const scopes = (await me(worker)).scopes;
      expect(scopes).toContain('org:newco');
      expect(scopes).not.toContain('org:oldco');

      expect(await boss.run('devices_list', {})).toContainEqual({ id: 'ren-owned', name: 'ren-owned', status: 'offline', owner: 'org:newco' });
      expect(await (await as('outsider@orgs.test')).run('device_access_list', { device: 'ren-shared' })).toEqual([{ org_id: 'newco', role: 'viewer' }]);
      expect(await worker.run('org_devices_list', { org_id: 'newco' })).toEqual([
        { id: 'ren-owned', name: 'ren-owned', status: 'offline' },
        { id: 'ren-shared', name: 'ren-shared', status: 'offline' },
      ]);
      for (const device of ['ren-owned', 'ren-shared']) await worker.route('device_status.one', { device });
      await expectRefused(boss.run('org_devices_list', { org_id: 'oldco' }), 404, 'NOT_FOUND');
    });
  });

  describe('org_delete', () => {
    beforeAll(async () => {
      await admin.run('org_create', { id: 'doomed', email: 'dboss@orgs.test' });
      await admin.run('org_members_add', { org_id: 'doomed', email: 'dadmin@orgs.test', role: 'admin' });
      await admin.run('org_members_add', { org_id: 'doomed', email: 'dmember@orgs.test', role: 'editor' });
      await registerDevice(server, 'del-owned', 'org:doomed', (await as('dboss@orgs.test')).caller);
      const dout = await as('dout@orgs.test');
      await registerDevice(server, 'del-shared', 'user:dout@orgs.test', dout.caller);
      await dout.run('device_access_add', { device: 'del-shared', email_or_org_id: 'doomed', role: 'editor' });
      await dout.run('device_access_add', { device: 'del-shared', email_or_org_id: 'friend@orgs.test', role: 'viewer' });
      await (await as('dmember@orgs.test')).route('device_status.one', { device: 'del-shared' });
    });

    it('refuses another organization admin (403), a member (403) and a stranger (404)', async () => {
      await expectRefused((await as('dadmin@orgs.test')).run('org_delete', { id: 'doomed' }), 403, 'FORBIDDEN', /owner or a server administrator/);
      await expectRefused((await as('dmember@orgs.test')).run('org_delete', { id: 'doomed' }), 403, 'FORBIDDEN');
      await expectRefused((await as('stranger@orgs.test')).run('org_delete', { id: 'doomed' }), 404, 'NOT_FOUND', 'Organization not found');
      await admin.run('org_members_list', { org_id: 'doomed' });
    });

    it('hands the devices to the owner, drops shares with the org, and members lose access', async () => {
      const dboss = await as('dboss@orgs.test');
      expect(await dboss.run('org_delete', { id: 'doomed' })).toEqual({ status: 'deleted' });

      expect(await dboss.run('devices_list', {})).toContainEqual({ id: 'del-owned', name: 'del-owned', status: 'offline', owner: 'user:dboss@orgs.test' });
      expect(await (await as('dout@orgs.test')).run('device_access_list', { device: 'del-shared' })).toEqual([{ email: 'friend@orgs.test', role: 'viewer' }]);
      for (const email of ['dadmin@orgs.test', 'dmember@orgs.test']) {
        const member = await as(email);
        await expectRefused(member.route('device_status.one', { device: 'del-owned' }), 404, 'DEVICE_NOT_FOUND', 'Device not found');
        await expectRefused(member.route('device_status.one', { device: 'del-shared' }), 404, 'DEVICE_NOT_FOUND', 'Device not found');
        expect(await member.run('devices_list', {})).toEqual([]);
        expect(await member.run('org_list', {})).toEqual([]);
        expect((await me(member)).scopes).toEqual([`user:${email}`]);
      }
      await expectRefused(admin.run('org_members_list', { org_id: 'doomed' }), 404, 'NOT_FOUND', 'Organization not found');
      expect(ids(await admin.run('org_list', {}))).not.toContain('doomed');
    });

    it('lets a server administrator (admin user or admin key) delete any organization', async () => {
      await admin.run('org_create', { id: 'doomed-2', email: 'd2@orgs.test' });
      await admin.run('org_create', { id: 'doomed-3', email: 'd3@orgs.test' });
      expect(await (await as('root@orgs.test')).run('org_delete', { id: 'doomed-2' })).toEqual({ status: 'deleted' });
      expect(await admin.run('org_delete', { id: 'doomed-3' })).toEqual({ status: 'deleted' });
      expect(ids(await admin.run('org_list', {}))).not.toContain('doomed-2');
      await expectRefused(admin.run('org_delete', { id: 'doomed-3' }), 404, 'NOT_FOUND');
    });
  });
});
