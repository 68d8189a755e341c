/**
 * Organizations over real HTTP with real logins: org_create, org_list, org_members_*, org_update
 * (rename) and org_delete, with what follows from each for memberships, scopes and devices.
 * Moving devices in and out of organizations and sharing rules: organizations-devices.e2e-spec.ts.
 */
import { ApiResponse, Caller } from './fixtures/api-client';
import { expectError } from './fixtures/expect-error';
import { registerDevice, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

describe('organizations', () => {
  const fleet = useFleet({ env: { ADMIN_EMAILS: 'Root@Orgs.test', REGISTRATION_RATE_LIMIT: '1000' } });
  let server: TestServer;
  const as = (email: string) => server.login(email);
  const ids = (res: ApiResponse) => (res.body as { id: string }[]).map((o) => o.id);

  beforeAll(() => {
    server = fleet.server;
  });

  describe('org_create', () => {
    it('creates an organization with the admin key', async () => {
      const res = await server.api.post('/orgs', { id: 'alpha', email: 'owner@orgs.test' }, server.admin);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ status: 'created' });
    });

    it('creates an organization as an admin user from ADMIN_EMAILS (matched case-insensitively)', async () => {
      const root = await as('root@orgs.test');
      expect((await server.api.get('/me', root)).body).toMatchObject({ email: 'root@orgs.test', admin: true });
      const res = await server.api.post('/orgs', { id: 'beta', email: 'Owner@Orgs.TEST' }, root);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ status: 'created' });
    });

    it('refuses a normal user', async () => {
      const res = await server.api.post('/orgs', { id: 'mine', email: 'normal@orgs.test' }, await as('normal@orgs.test'));
      expectError(res, 403, 'FORBIDDEN');
      expectError(await server.api.get('/orgs/mine/members', server.admin), 404, 'NOT_FOUND', 'Organization not found');
    });

    it('refuses a taken id with 409', async () => {
      expectError(await server.api.post('/orgs', { id: 'alpha', email: 'else@orgs.test' }, server.admin), 409, 'CONFLICT');
      const members = await server.api.get('/orgs/alpha/members', server.admin);
      expect(members.body).toEqual([{ email: 'owner@orgs.test', role: 'admin' }]);
    });

    it.each(['A', 'x', 'Upper', 'has space', '-lead', 'a/b', 'a'.repeat(64), ''])('refuses the id %j with 400', async (id) => {
      expectError(await server.api.post('/orgs', { id, email: 'owner@orgs.test' }, server.admin), 400, 'INVALID_INPUT', /id/);
    });

    it.each(['nope', 'a@b', '@orgs.test', 'two@@orgs.test', ''])('refuses the e-mail %j with 400', async (email) => {
      expectError(await server.api.post('/orgs', { id: 'bad-mail', email }, server.admin), 400, 'INVALID_INPUT', /email/);
    });
  });

  describe('org_list', () => {
    it('shows a member their own organizations with member counts', async () => {
      await server.api.post('/orgs/alpha/members', { email: 'helper@orgs.test', role: 'viewer' }, server.admin);
      const owner = await server.api.get('/orgs', await as('owner@orgs.test'));
      expect(owner.status).toBe(200);
      expect(owner.body).toEqual([
        { id: 'alpha', owner: 'owner@orgs.test', members: 2 },
        { id: 'beta', owner: 'owner@orgs.test', members: 1 },
      ]);
      expect((await server.api.get('/orgs', await as('helper@orgs.test'))).body).toEqual([{ id: 'alpha', owner: 'owner@orgs.test', members: 2 }]);
    });

    it('shows a non-member nothing', async () => {
      expect((await server.api.get('/orgs', await as('nobody@orgs.test'))).body).toEqual([]);
    });

    it('shows the admin key and admin users every organization', async () => {
      for (const caller of [server.admin, await as('root@orgs.test')]) {
        expect(ids(await server.api.get('/orgs', caller))).toEqual(expect.arrayContaining(['alpha', 'beta']));
      }
    });
  });

  describe('org_members_list / add / remove', () => {
    const members = async (caller: Caller = server.admin) => (await server.api.get('/orgs/crew/members', caller)).body;
    const add = async (caller: Caller, email: string, role: string) => server.api.post('/orgs/crew/members', { email, role }, caller);

    beforeAll(async () => {
      await server.api.post('/orgs', { id: 'crew', email: 'cap@orgs.test' }, server.admin);
      const cap = await as('cap@orgs.test');
      for (const [email, role] of [['mate@orgs.test', 'admin'], ['deck@orgs.test', 'editor'], ['look@orgs.test', 'viewer'], ['swab@orgs.test', 'viewer']]) {
        expect((await add(cap, email, role)).body).toEqual({ status: 'added' });
      }
    });

    it('lists members with tool roles', async () => {
      const res = await server.api.get('/orgs/crew/members', await as('look@orgs.test'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { email: 'cap@orgs.test', role: 'admin' },
        { email: 'deck@orgs.test', role: 'editor' },
        { email: 'look@orgs.test', role: 'viewer' },
        { email: 'mate@orgs.test', role: 'admin' },
        { email: 'swab@orgs.test', role: 'viewer' },
      ]);
    });

    it.each(['member', 'owner', 'Admin', ''])('refuses the role %j with 400', async (role) => {
      expectError(await add(server.admin, 'new@orgs.test', role), 400, 'INVALID_INPUT', /role must be one of admin, editor, viewer/);
    });

    it('updates the role when a member is added again', async () => {
      expect((await add(await as('mate@orgs.test'), 'look@orgs.test', 'editor')).body).toEqual({ status: 'added' });
      expect(await members()).toContainEqual({ email: 'look@orgs.test', role: 'editor' });
      expect((await members()).filter((m: { email: string }) => m.email === 'look@orgs.test')).toHaveLength(1);
      await add(server.admin, 'look@orgs.test', 'viewer');
    });

    it('refuses members without the admin role (403) and non-members (404)', async () => {
      expectError(await add(await as('deck@orgs.test'), 'x@orgs.test', 'viewer'), 403, 'FORBIDDEN');
      expectError(await add(await as('look@orgs.test'), 'x@orgs.test', 'viewer'), 403, 'FORBIDDEN');
      expectError(await server.api.delete('/orgs/crew/members/swab@orgs.test', await as('deck@orgs.test')), 403, 'FORBIDDEN');
      const stranger = await as('stranger@orgs.test');
      expectError(await server.api.get('/orgs/crew/members', stranger), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await add(stranger, 'x@orgs.test', 'viewer'), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await server.api.delete('/orgs/crew/members/swab@orgs.test', stranger), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await server.api.get('/orgs/no-such-org/members', server.admin), 404, 'NOT_FOUND', 'Organization not found');
      expect((await members()).map((m: { email: string }) => m.email)).not.toContain('x@orgs.test');
    });

    it('lets an admin remove another member, who then loses the organization', async () => {
      const deck = await as('deck@orgs.test');
      expect((await server.api.get('/me', deck)).body.scopes).toContain('org:crew');
      expect((await server.api.delete('/orgs/crew/members/deck@orgs.test', await as('mate@orgs.test'))).body).toEqual({ status: 'removed' });
      expect((await members()).map((m: { email: string }) => m.email)).not.toContain('deck@orgs.test');
      expect((await server.api.get('/orgs', deck)).body).toEqual([]);
      expect((await server.api.get('/me', deck)).body.scopes).toEqual(['user:deck@orgs.test']);
      expectError(await server.api.delete('/orgs/crew/members/deck@orgs.test', server.admin), 404, 'NOT_FOUND');
    });

    it('lets a member leave', async () => {
      const swab = await as('swab@orgs.test');
      expect((await server.api.delete('/orgs/crew/members/swab@orgs.test', swab)).body).toEqual({ status: 'removed' });
      expect((await server.api.get('/orgs', swab)).body).toEqual([]);
    });

    it('never removes or demotes the owner (409)', async () => {
      const mate = await as('mate@orgs.test');
      expectError(await server.api.delete('/orgs/crew/members/cap@orgs.test', mate), 409, 'CONFLICT');
      expectError(await server.api.delete('/orgs/crew/members/cap@orgs.test', server.admin), 409, 'CONFLICT');
      expectError(await server.api.delete('/orgs/crew/members/cap@orgs.test', await as('cap@orgs.test')), 409, 'CONFLICT');
      expectError(await add(mate, 'cap@orgs.test', 'editor'), 409, 'CONFLICT');
      expectError(await add(server.admin, 'cap@orgs.test', 'viewer'), 409, 'CONFLICT');
      expect(await members()).toContainEqual({ email: 'cap@orgs.test', role: 'admin' });
    });
  });

  describe('org_update (rename)', () => {
    beforeAll(async () => {
      await server.api.post('/orgs', { id: 'oldco', email: 'boss@orgs.test' }, server.admin);
      await server.api.post('/orgs/oldco/members', { email: 'worker@orgs.test', role: 'editor' }, server.admin);
      await registerDevice(server, 'ren-owned', 'org:oldco', await as('boss@orgs.test'));
      const outsider = await as('outsider@orgs.test');
      await registerDevice(server, 'ren-shared', 'user:outsider@orgs.test', outsider);
      expect((await server.api.post('/devices/ren-shared/access', { email_or_org_id: 'oldco', role: 'viewer' }, outsider)).status).toBe(200);
    });

    it('refuses non-admins, strangers, bad ids and taken ids, changing nothing', async () => {
      expectError(await server.api.patch('/orgs/oldco', { new_id: 'newco' }, await as('worker@orgs.test')), 403, 'FORBIDDEN');
      expectError(await server.api.patch('/orgs/oldco', { new_id: 'newco' }, await as('stranger@orgs.test')), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await server.api.patch('/orgs/oldco', { new_id: 'Bad Id' }, await as('boss@orgs.test')), 400, 'INVALID_INPUT', /new_id/);
      expectError(await server.api.patch('/orgs/oldco', { new_id: 'alpha' }, await as('boss@orgs.test')), 409, 'CONFLICT');
      expect((await server.api.get('/orgs/oldco/members', server.admin)).status).toBe(200);
      expect((await server.api.get('/orgs/alpha/members', server.admin)).body).toEqual([
        { email: 'helper@orgs.test', role: 'viewer' },
        { email: 'owner@orgs.test', role: 'admin' },
      ]);
    });

    it('renames everywhere: memberships, scopes, device owners and shares', async () => {
      const boss = await as('boss@orgs.test');
      const worker = await as('worker@orgs.test');
      const res = await server.api.patch('/orgs/oldco', { new_id: 'newco' }, boss);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'updated' });

      expectError(await server.api.get('/orgs/oldco/members', boss), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await server.api.get('/orgs/oldco/members', server.admin), 404, 'NOT_FOUND');
      expect((await server.api.get('/orgs/newco/members', boss)).body).toEqual([
        { email: 'boss@orgs.test', role: 'admin' },
        { email: 'worker@orgs.test', role: 'editor' },
      ]);
      expect((await server.api.get('/orgs', worker)).body).toEqual([{ id: 'newco', owner: 'boss@orgs.test', members: 2 }]);
      const scopes = (await server.api.get('/me', worker)).body.scopes;
      expect(scopes).toContain('org:newco');
      expect(scopes).not.toContain('org:oldco');

      expect((await server.api.get('/devices', boss)).body).toContainEqual({ id: 'ren-owned', name: 'ren-owned', status: 'offline', owner: 'org:newco' });
      expect((await server.api.get('/devices/ren-shared/access', await as('outsider@orgs.test'))).body).toEqual([{ org_id: 'newco', role: 'viewer' }]);
      expect((await server.api.get('/orgs/newco/devices', worker)).body).toEqual([
        { id: 'ren-owned', name: 'ren-owned', status: 'offline' },
        { id: 'ren-shared', name: 'ren-shared', status: 'offline' },
      ]);
      for (const device of ['ren-owned', 'ren-shared']) expect((await server.api.get(`/devices/${device}/status`, worker)).status).toBe(200);
      expectError(await server.api.get('/orgs/oldco/devices', boss), 404, 'NOT_FOUND');
    });
  });

  describe('org_delete', () => {
    beforeAll(async () => {
      await server.api.post('/orgs', { id: 'doomed', email: 'dboss@orgs.test' }, server.admin);
      await server.api.post('/orgs/doomed/members', { email: 'dadmin@orgs.test', role: 'admin' }, server.admin);
      await server.api.post('/orgs/doomed/members', { email: 'dmember@orgs.test', role: 'editor' }, server.admin);
      await registerDevice(server, 'del-owned', 'org:doomed', await as('dboss@orgs.test'));
      const dout = await as('dout@orgs.test');
      await registerDevice(server, 'del-shared', 'user:dout@orgs.test', dout);
      await server.api.post('/devices/del-shared/access', { email_or_org_id: 'doomed', role: 'editor' }, dout);
      await server.api.post('/devices/del-shared/access', { email_or_org_id: 'friend@orgs.test', role: 'viewer' }, dout);
      expect((await server.api.get('/devices/del-shared/status', await as('dmember@orgs.test'))).status).toBe(200);
    });

    it('refuses another organization admin (403), a member (403) and a stranger (404)', async () => {
      expectError(await server.api.delete('/orgs/doomed', await as('dadmin@orgs.test')), 403, 'FORBIDDEN', /owner or a server administrator/);
      expectError(await server.api.delete('/orgs/doomed', await as('dmember@orgs.test')), 403, 'FORBIDDEN');
      expectError(await server.api.delete('/orgs/doomed', await as('stranger@orgs.test')), 404, 'NOT_FOUND', 'Organization not found');
      expect((await server.api.get('/orgs/doomed/members', server.admin)).status).toBe(200);
    });

    it('hands the devices to the owner, drops shares with the org, and members lose access', async () => {
      const dboss = await as('dboss@orgs.test');
      const res = await server.api.delete('/orgs/doomed', dboss);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'deleted' });

      expect((await server.api.get('/devices', dboss)).body).toContainEqual({ id: 'del-owned', name: 'del-owned', status: 'offline', owner: 'user:dboss@orgs.test' });
      expect((await server.api.get('/devices/del-shared/access', await as('dout@orgs.test'))).body).toEqual([{ email: 'friend@orgs.test', role: 'viewer' }]);
      for (const email of ['dadmin@orgs.test', 'dmember@orgs.test']) {
        const member = await as(email);
        expectError(await server.api.get('/devices/del-owned/status', member), 404, 'DEVICE_NOT_FOUND', 'Device not found');
        expectError(await server.api.get('/devices/del-shared/status', member), 404, 'DEVICE_NOT_FOUND', 'Device not found');
        expect((await server.api.get('/devices', member)).body).toEqual([]);
        expect((await server.api.get('/orgs', member)).body).toEqual([]);
        expect((await server.api.get('/me', member)).body.scopes).toEqual([`user:${email}`]);
      }
      expectError(await server.api.get('/orgs/doomed/members', server.admin), 404, 'NOT_FOUND', 'Organization not found');
      expect(ids(await server.api.get('/orgs', server.admin))).not.toContain('doomed');
    });

    it('lets a server administrator (admin user or admin key) delete any organization', async () => {
      await server.api.post('/orgs', { id: 'doomed-2', email: 'd2@orgs.test' }, server.admin);
      await server.api.post('/orgs', { id: 'doomed-3', email: 'd3@orgs.test' }, server.admin);
      expect((await server.api.delete('/orgs/doomed-2', await as('root@orgs.test'))).body).toEqual({ status: 'deleted' });
      expect((await server.api.delete('/orgs/doomed-3', server.admin)).body).toEqual({ status: 'deleted' });
      expect(ids(await server.api.get('/orgs', server.admin))).not.toContain('doomed-2');
      expectError(await server.api.delete('/orgs/doomed-3', server.admin), 404, 'NOT_FOUND');
    });
  });
});
