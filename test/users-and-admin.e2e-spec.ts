/**
 * Accounts and administration with real logins: approval rules (USERS_NEED_APPROVAL,
 * USER_AUTO_ACCEPT_DOMAINS, ADMIN_EMAILS), the admin API (approve, list, bootstrap an admin),
 * admin-key handling, /me, and e-mail addresses compared case-insensitively. Catalog operations
 * are called by name through the SDK; the users API and /me (no catalog entries) and the admin
 * key's own credential checks are called raw.
 */
import { accessTokenClaims, signTokenWithProviderKey } from './fixtures/oidc';
import { expectError, expectRefused } from './fixtures/expect-error';
import { registerDevice, TestServer, TEST_ADMIN_KEY } from './fixtures/test-server';
import { OperationClient, useFleet } from './fixtures/fleet';

describe('users and administration', () => {
  const fleet = useFleet({ env: { USERS_NEED_APPROVAL: 'true', USER_AUTO_ACCEPT_DOMAINS: 'Auto.test,partner.example', ADMIN_EMAILS: 'Root@Corp.test' } });
  let server: TestServer;
  let admin: OperationClient;
  const as = async (email: string) => (await fleet.as(email)).caller;

  beforeAll(() => {
    server = fleet.server;
    admin = fleet.admin;
  });

  describe('USERS_NEED_APPROVAL=true', () => {
    it('keeps a new account pending with ACCOUNT_PENDING_APPROVAL', async () => {
      const pending = await fleet.as('pending@corp.test');
      expectError(await server.api.get('/me', pending.caller), 403, 'ACCOUNT_PENDING_APPROVAL', /awaits approval/);
      await expectRefused(pending.run('devices_list', {}), 403, 'ACCOUNT_PENDING_APPROVAL', /awaits approval/);
      await expectRefused(pending.run('org_list', {}), 403, 'ACCOUNT_PENDING_APPROVAL', /awaits approval/);
      const listed = await server.api.get('/users?active=false', server.admin);
      expect(listed.status).toBe(200);
      expect(listed.body).toContainEqual({ email: 'pending@corp.test', active: false, admin: false, created_at: expect.any(String), approved_at: null });
      expect((await server.api.get('/users?active=true', server.admin)).body).not.toContainEqual(expect.objectContaining({ email: 'pending@corp.test' }));
    });

    it('activates an account in an auto-accepted domain', async () => {
      const res = await server.api.get('/me', await as('someone@auto.test'));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: 'someone@auto.test', admin: false, scopes: ['user:someone@auto.test'] });
      expect((await server.api.get('/me', await as('x@partner.example'))).status).toBe(200);
      expectError(await server.api.get('/me', await as('x@sub.auto.test')), 403, 'ACCOUNT_PENDING_APPROVAL');
    });

    it('activates an address in ADMIN_EMAILS as an admin', async () => {
      const res = await server.api.get('/me', await as('root@corp.test'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ kind: 'user', email: 'root@corp.test', scopes: ['user:root@corp.test'], memberships: [], admin: true });
      expect((await server.api.get('/users', await as('root@corp.test'))).status).toBe(200);
    });

    it('approves a pending account with the admin key; approving twice is 409, unknown is 404', async () => {
      const late = await as('late@corp.test');
      expectError(await server.api.get('/me', late), 403, 'ACCOUNT_PENDING_APPROVAL');
      const approved = await server.api.post('/users/late@corp.test/approve', undefined, server.admin);
      expect(approved.status).toBe(200);
      expect(approved.body).toEqual({ email: 'late@corp.test', active: true, admin: false, created_at: expect.any(String), approved_at: expect.any(String) });
      const me = await server.api.get('/me', late);
      expect(me.status).toBe(200);
      expect(me.body.scopes).toEqual(['user:late@corp.test']);
      expectError(await server.api.post('/users/late@corp.test/approve', undefined, server.admin), 409, 'CONFLICT');
      expectError(await server.api.post('/users/ghost@corp.test/approve', undefined, server.admin), 404, 'NOT_FOUND');
      expectError(await server.api.post('/users/not-an-email/approve', undefined, server.admin), 400, 'INVALID_INPUT');
      expect((await server.api.get('/users?active=false', server.admin)).body).not.toContainEqual(expect.objectContaining({ email: 'late@corp.test' }));
    });

    it('shows one account as the list does; an unknown one is 404, to administrators only', async () => {
      const listed = (await server.api.get('/users', server.admin)).body.find((user: { email: string }) => user.email === 'late@corp.test');
      expect((await server.api.get('/users/Late@Corp.test', server.admin)).body).toEqual(listed);
      expectError(await server.api.get('/users/ghost@corp.test', server.admin), 404, 'NOT_FOUND');
      expectError(await server.api.get('/users/late@corp.test', await as('someone@auto.test')), 403, 'FORBIDDEN');
    });

    it('lets an admin user approve accounts too', async () => {
      const other = await as('other@corp.test');
      expectError(await server.api.get('/me', other), 403, 'ACCOUNT_PENDING_APPROVAL');
      expect((await server.api.post('/users/other@corp.test/approve', undefined, await as('root@corp.test'))).status).toBe(200);
      expect((await server.api.get('/me', other)).status).toBe(200);
    });

    it('bootstraps an admin before the first login, who can then create organizations', async () => {
      const granted = await server.api.post('/users/boot@corp.test/admin', undefined, server.admin);
      expect(granted.status).toBe(200);
      expect(granted.body).toMatchObject({ email: 'boot@corp.test', active: true, admin: true });
      const boot = await as('boot@corp.test');
      expect((await server.api.get('/me', boot)).body).toMatchObject({ email: 'boot@corp.test', admin: true });
      // Raw: the REST contract's 201 Created, which the SDK does not surface.
      const created = await server.api.post('/orgs', { id: 'boot-org', email: 'boot@corp.test' }, boot);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ status: 'created' });
      expect((await server.api.get('/users?active=true', boot)).body).toContainEqual(expect.objectContaining({ email: 'boot@corp.test', admin: true }));
    });

    it('grants admin to a pending account, activating it', async () => {
      const waiting = await as('waiting@corp.test');
      expectError(await server.api.get('/me', waiting), 403, 'ACCOUNT_PENDING_APPROVAL');
      expect((await server.api.post('/users/waiting@corp.test/admin', undefined, server.admin)).body).toMatchObject({ active: true, admin: true });
      expect((await server.api.get('/me', waiting)).body).toMatchObject({ admin: true });
    });
  });

  describe('admin key and admin routes', () => {
    it('accepts the right admin key (200) and refuses a wrong one (401 Invalid admin key)', async () => {
      expect((await server.api.get('/users', server.admin)).status).toBe(200);
      expectError(await server.api.get('/users', { adminKey: 'wrong-key' }), 401, 'UNAUTHENTICATED', 'Invalid admin key');
      expectError(await server.api.get('/users', { adminKey: TEST_ADMIN_KEY + 'x' }), 401, 'UNAUTHENTICATED', 'Invalid admin key');
      expectError(await server.api.get('/users', { adminKey: '' }), 401, 'UNAUTHENTICATED', 'Invalid admin key');
      const wrongWithToken = await server.api.get('/users', { adminKey: 'wrong-key', token: (await as('root@corp.test')).token });
      expectError(wrongWithToken, 401, 'UNAUTHENTICATED', 'Invalid admin key');
    });

    it('answers 401 without any credentials', async () => {
      for (const [method, path] of [['GET', '/users'], ['POST', '/users/a@corp.test/approve'], ['POST', '/users/a@corp.test/admin'], ['GET', '/me']]) {
        expectError(await server.api.call(method, path), 401, 'UNAUTHENTICATED', /Authentication required/);
      }
    });

    it('refuses the admin key on user-only routes (403)', async () => {
      await expectRefused(admin.run('devices_list', {}), 403, 'FORBIDDEN', /admin key cannot act on devices/);
      await expectRefused(admin.run('org_devices_list', { org_id: 'boot-org' }), 403, 'FORBIDDEN');
    });

    it('refuses a normal user on admin routes (403)', async () => {
      const normal = await as('normal@auto.test');
      expectError(await server.api.get('/users', normal), 403, 'FORBIDDEN', /Administrator privileges required/);
      expectError(await server.api.post('/users/pending@corp.test/approve', undefined, normal), 403, 'FORBIDDEN');
      expectError(await server.api.post('/users/normal@auto.test/admin', undefined, normal), 403, 'FORBIDDEN');
      await expectRefused((await fleet.as('normal@auto.test')).run('org_create', { id: 'mine', email: 'normal@auto.test' }), 403, 'FORBIDDEN');
      expectError(await server.api.get('/me', await as('pending@corp.test')), 403, 'ACCOUNT_PENDING_APPROVAL');
    });

    it('refuses a malformed active filter with 400', async () => {
      expectError(await server.api.get('/users?active=maybe', server.admin), 400, 'INVALID_INPUT');
    });
  });

  describe('/me and organizations', () => {
    it('adds org:<id> to the scopes once the user joins an organization', async () => {
      const joiner = await as('joiner@auto.test');
      expect((await server.api.get('/me', joiner)).body.scopes).toEqual(['user:joiner@auto.test']);
      await admin.run('org_members_add', { org_id: 'boot-org', email: 'joiner@auto.test', role: 'viewer' });
      const me = (await server.api.get('/me', joiner)).body;
      expect(me.scopes).toEqual(['user:joiner@auto.test', 'org:boot-org']);
      expect(me.memberships).toEqual([{ orgId: 'boot-org', role: 'viewer' }]);
    });
  });

  describe('e-mail addresses are case-insensitive', () => {
    it('treats a login as Alice@Example.test as alice@example.test', async () => {
      await server.api.post('/users/alice@example.test/admin', undefined, server.admin);
      const mixed = await as('Alice@Example.test');
      const lower = await as('alice@example.test');
      const me = await server.api.get('/me', mixed);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ email: 'alice@example.test', scopes: ['user:alice@example.test'] });
      expect((await server.api.get('/me', lower)).body).toEqual(me.body);
    });

    it('normalises an upper-case email claim in the token itself', async () => {
      // The same identity as the logins above (the development provider's sub is the address).
      const token = signTokenWithProviderKey(fleet.idp, accessTokenClaims(fleet.idp, 'Alice@EXAMPLE.Test', { sub: 'alice@example.test' }));
      const me = await server.api.get('/me', { token });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ email: 'alice@example.test', scopes: ['user:alice@example.test'], admin: true });
      await registerDevice(server, 'alice-dev', 'user:alice@example.test', { token });
      await (await fleet.as('alice@example.test')).route('device_status.one', { device: 'alice-dev' });
    });

    it('matches addresses in admin routes, memberships and shares regardless of case', async () => {
      const bob = await as('bob@corp.test');
      expectError(await server.api.get('/me', bob), 403, 'ACCOUNT_PENDING_APPROVAL');
      expect((await server.api.post('/users/BOB@Corp.TEST/approve', undefined, server.admin)).body).toMatchObject({ email: 'bob@corp.test', active: true });
      expect((await server.api.get('/me', bob)).status).toBe(200);
      await admin.run('org_members_add', { org_id: 'boot-org', email: 'Bob@Corp.test', role: 'editor' });
      expect((await server.api.get('/me', bob)).body.scopes).toContain('org:boot-org');
      expect(await admin.run('org_members_remove', { org_id: 'boot-org', email: 'BOB@corp.test' })).toEqual({ status: 'removed' });
      expect((await server.api.get('/me', bob)).body.scopes).toEqual(['user:bob@corp.test']);
      const alice = await fleet.as('alice@example.test');
      await alice.run('device_access_add', { device: 'alice-dev', email_or_org_id: 'BOB@corp.test', role: 'viewer' });
      await (await fleet.as('bob@corp.test')).route('device_status.one', { device: 'alice-dev' });
      expect(await alice.run('device_access_list', { device: 'alice-dev' })).toEqual([{ email: 'bob@corp.test', role: 'viewer' }]);
    });
  });
});

describe('users with USERS_NEED_APPROVAL=false', () => {
  const fleet = useFleet({ env: { USERS_NEED_APPROVAL: 'false' } });
  let server: TestServer;
  beforeAll(() => {
    server = fleet.server;
  });

  it('creates an active account on the first request', async () => {
    const me = await server.api.get('/me', await server.login('fresh@anywhere.test'));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ kind: 'user', email: 'fresh@anywhere.test', scopes: ['user:fresh@anywhere.test'], memberships: [], admin: false });
    const users = (await server.api.get('/users', server.admin)).body;
    expect(users).toEqual([{ email: 'fresh@anywhere.test', active: true, admin: false, created_at: expect.any(String), approved_at: null }]);
    expect((await server.api.get('/users?active=false', server.admin)).body).toEqual([]);
  });
});
