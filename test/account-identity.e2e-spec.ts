/**
 * Who an access token makes you, against the real server: the account is bound to the issuer's
 * `sub` on first sign-in (another `sub` with the same e-mail is refused, an admin can reset the
 * binding, a new OAUTH_ISSUER binds afresh), e-mail claims follow the one e-mail rule, and the
 * key that seals pending API keys is the server secret under DATA_DIR, not ADMIN_KEY. /me and the
 * users API (no catalog entries) are called raw, operations by name through the SDK.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT } from '../apps/server/src/storage/records';
import { AuditWriter } from '../apps/server/src/audit/audit-writer';
import { Storage } from '../apps/server/src/storage/storage.port';
import { ApiResponse } from './fixtures/api-client';
import { expectError, expectRefused } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import { callerClient } from './fixtures/operation-client';
import { accessTokenClaims, IdentityProviderHandle, signTokenWithProviderKey, startIdentityProvider } from './fixtures/oidc';
import { startStubIssuer, StubIssuerHandle } from './fixtures/oidc-stub-issuer';
import { pollRegistration, requestRegistration, startTestServer, TestServer, TEST_ADMIN_KEY } from './fixtures/test-server';

type Issuer = { issuer: string; audience: string; keysFile: string };

/** A token the issuer really signed, for `email` as the identity `sub`. */
const tokenOf = (issuer: Issuer, email: string, sub: string) => ({ token: signTokenWithProviderKey(issuer, accessTokenClaims(issuer, email, { sub })) });

describe('account binding to the issuer subject', () => {
  // The REST answers (/me, the reset) are this suite's subject; its callers sign in during the tests.
  const fleet = useFleet({ env: { ADMIN_EMAILS: 'root@bind.test' } });
  const me = (caller: { token?: string }): Promise<ApiResponse> => fleet.server.api.get('/me', caller);
  const as = (email: string, sub: string) => tokenOf(fleet.idp, email, sub);

  it('binds on first sign-in and refuses another sub with the same e-mail (403 ACCOUNT_SUBJECT_MISMATCH)', async () => {
    const sam = await fleet.server.login('sam@bind.test'); // the development provider's sub is the address
    expect((await me(sam)).status).toBe(200);
    const impostor = as('sam@bind.test', 'somebody-else');
    expectError(await me(impostor), 403, 'ACCOUNT_SUBJECT_MISMATCH', /bound to another identity/);
    await expectRefused(fleet.client(impostor).run('devices_list', {}), 403, 'ACCOUNT_SUBJECT_MISMATCH');
    // The same sub with the address in other letter case is still sam.
    expect((await me(as('Sam@Bind.TEST', 'sam@bind.test'))).body).toMatchObject({ email: 'sam@bind.test' });
    expect((await me(sam)).status).toBe(200);
  });

  it('binds an account the admin API created in advance on its first sign-in', async () => {
    expect((await fleet.server.api.post('/users/pre@bind.test/admin', undefined, fleet.server.admin)).status).toBe(200);
    expect((await me(as('pre@bind.test', 'pre-sub-1'))).body).toMatchObject({ email: 'pre@bind.test', admin: true });
    expectError(await me(as('pre@bind.test', 'pre-sub-2')), 403, 'ACCOUNT_SUBJECT_MISMATCH');
    expect((await me(as('pre@bind.test', 'pre-sub-1'))).status).toBe(200);
  });

  it('lets exactly one of several racing first sign-ins bind a new account', async () => {
    const subs = ['race-a', 'race-b', 'race-c', 'race-d'];
    const answers = await Promise.all(subs.map((sub) => me(as('race@bind.test', sub))));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of answers.filter((r) => r.status !== 200)) expectError(res, 403, 'ACCOUNT_SUBJECT_MISMATCH');
    const winner = subs[answers.findIndex((res) => res.status === 200)];
    expect((await me(as('race@bind.test', winner))).status).toBe(200);
  });

  it('checks the binding before approval, so an impostor cannot even learn the account is pending', async () => {
    const pendingServer = await startTestServer(fleet.idp, { USERS_NEED_APPROVAL: 'true' });
    try {
      const first = tokenOf(fleet.idp, 'wait@bind.test', 'wait-1');
      expectError(await pendingServer.api.get('/me', first), 403, 'ACCOUNT_PENDING_APPROVAL');
      expectError(await pendingServer.api.get('/me', tokenOf(fleet.idp, 'wait@bind.test', 'wait-2')), 403, 'ACCOUNT_SUBJECT_MISMATCH');
    } finally {
      await pendingServer.close();
    }
  });

  it('lets the admin key reset the binding; the next sign-in binds again; the reset is audited', async () => {
    const lee = await fleet.server.login('lee@bind.test');
    expect((await me(lee)).status).toBe(200);
    const moved = as('lee@bind.test', 'lee-at-new-account');
    expectError(await me(moved), 403, 'ACCOUNT_SUBJECT_MISMATCH');

    const reset = await fleet.server.api.post('/users/LEE@bind.test/reset-subject', undefined, fleet.server.admin);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ email: 'lee@bind.test', active: true, admin: false, created_at: expect.any(String), approved_at: null });
    expect((await me(moved)).status).toBe(200);
    expectError(await me(lee), 403, 'ACCOUNT_SUBJECT_MISMATCH');

    // Straight from storage: first the entries the writer still holds (it writes a turn after the request).
    await fleet.server.app.get(AuditWriter, { strict: false }).flush();
    const audit = await fleet.server.app.get(Storage).collection(AUDIT).find({ action: 'user.subject_reset' });
    expect(audit).toEqual([expect.objectContaining({ user: 'admin-key', details: expect.stringContaining('lee@bind.test') })]);
    expect(JSON.stringify(audit)).not.toContain(TEST_ADMIN_KEY);
  });

  it('lets an admin user reset a binding too', async () => {
    const kim = await fleet.server.login('kim@bind.test');
    expect((await me(kim)).status).toBe(200);
    expect((await fleet.server.api.post('/users/kim@bind.test/reset-subject', undefined, await fleet.server.login('root@bind.test'))).status).toBe(200);
    expect((await me(as('kim@bind.test', 'kim-elsewhere'))).status).toBe(200);
    expectError(await me(kim), 403, 'ACCOUNT_SUBJECT_MISMATCH');
  });

  it('guards the reset: 401 without credentials, 403 for a normal user, 404 for no account, 400 for a bad address', async () => {
    const normal = await fleet.server.login('normal@bind.test');
    expect((await me(normal)).status).toBe(200);
    expectError(await fleet.server.api.post('/users/normal@bind.test/reset-subject', undefined), 401, 'UNAUTHENTICATED');
    expectError(await fleet.server.api.post('/users/normal@bind.test/reset-subject', undefined, normal), 403, 'FORBIDDEN', /Administrator privileges required/);
    expectError(await fleet.server.api.post('/users/ghost@bind.test/reset-subject', undefined, fleet.server.admin), 404, 'NOT_FOUND');
    for (const bad of ['not-an-email', encodeURIComponent('\uFF41lice@bind.test'), encodeURIComponent(' normal@bind.test')]) {
      expectError(await fleet.server.api.post(`/users/${bad}/reset-subject`, undefined, fleet.server.admin), 400, 'INVALID_INPUT');
    }
    expect((await me(normal)).status).toBe(200);
  });
});

describe('e-mail claims follow the one e-mail rule', () => {
  const fleet = useFleet({});

  beforeAll(async () => {
    const server = fleet.server;
    for (const email of ['alice@rule.test', 'kate@rule.test']) expect((await server.api.get('/me', await fleet.server.login(email))).status).toBe(200);
  });

  it.each([
    ['a fullwidth look-alike letter', '\uFF41lice@rule.test'],
    ['a slash', 'a/b@rule.test'],
    ['a leading space', ' alice@rule.test'],
    ['a trailing newline', 'alice@rule.test\n'],
    ['the Kelvin sign', '\u212Aate@rule.test'],
  ])('refuses a token whose e-mail has %s with 403 and creates no account', async (_what, email) => {
    const res = await fleet.server.api.get('/me', tokenOf(fleet.idp, email, `sub-of-${encodeURIComponent(email)}`));
    expectError(res, 403, 'FORBIDDEN', /not one this server accepts/);
    const users = (await fleet.server.api.get('/users', fleet.server.admin)).body as { email: string }[];
    expect(users.map((u) => u.email)).toEqual(['alice@rule.test', 'kate@rule.test']);
  });

  it('files a mixed-case address under its lower-case account', async () => {
    const res = await fleet.server.api.get('/me', tokenOf(fleet.idp, 'Alice@Rule.TEST', 'alice@rule.test'));
    expect(res.body).toMatchObject({ email: 'alice@rule.test', scopes: ['user:alice@rule.test'] });
  });
});

describe('a new OAUTH_ISSUER binds accounts afresh', () => {
  let idp: IdentityProviderHandle;
  let stub: StubIssuerHandle;
  let dataDir: string;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    stub = await startStubIssuer();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-issuer-change-'));
  });
  afterAll(async () => {
    await idp?.stop();
    await stub?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the binding per issuer: the first sign-in at the new issuer binds, another sub there is refused', async () => {
    const before = await startTestServer(idp, { DATA_DIR: dataDir });
    try {
      expect((await before.api.get('/me', await before.login('mia@issuer.test'))).status).toBe(200);
    } finally {
      await before.close();
    }
    const after = await startTestServer(stub, { DATA_DIR: dataDir });
    try {
      expect((await after.api.get('/me', tokenOf(stub, 'mia@issuer.test', 'stub-mia'))).body).toMatchObject({ email: 'mia@issuer.test' });
      expectError(await after.api.get('/me', tokenOf(stub, 'mia@issuer.test', 'stub-intruder')), 403, 'ACCOUNT_SUBJECT_MISMATCH');
      expect((await after.api.get('/me', tokenOf(stub, 'mia@issuer.test', 'stub-mia'))).status).toBe(200);
    } finally {
      await after.close();
    }
  });
});

describe('the secret that seals pending API keys', () => {
  let idp: IdentityProviderHandle;
  let dataDir: string;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-server-secret-'));
  });
  afterAll(async () => {
    await idp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is generated into DATA_DIR, not derived from ADMIN_KEY: an approved key survives a new ADMIN_KEY', async () => {
    const first = await startTestServer(idp, { DATA_DIR: dataDir });
    let requestId: string;
    try {
      const owner = await first.login('owner@secret.test');
      requestId = await requestRegistration(first, 'sealed-dev', 'user:owner@secret.test');
      const client = callerClient(first.url, owner);
      await client.run('devices_approve', { device: requestId }).finally(() => client.close());
    } finally {
      await first.close();
    }

    const second = await startTestServer(idp, { DATA_DIR: dataDir, ADMIN_KEY: 'a-completely-different-admin-key' });
    try {
      const polled = await pollRegistration(second, requestId);
      expect(polled.status).toBe(200);
      expect(polled.body).toMatchObject({ status: 'approved', api_key: expect.stringMatching(/^svc_/) });
      const file = join(dataDir, 'server-secret');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(second.config.serverSecret.equals(Buffer.from(readFileSync(file, 'utf8').trim()))).toBe(true);
      expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url')).toHaveLength(32);
    } finally {
      await second.close();
    }
  });
});
