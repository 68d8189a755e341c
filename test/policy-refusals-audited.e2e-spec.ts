/**
 * Refusals are audited where AccessPolicy decides them (docs/security.md, "One policy"): a member
 * who may not approve for its organization, a stranger squatting a device id an owner's device
 * asked for first, an organization's owner trying to leave it, a viewer trying to run a command.
 * Each refusal answers as before and leaves an `access.refused` entry naming who and what.
 */
import { Caller } from './fixtures/api-client';
import { expectError } from './fixtures/expect-error';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { registerDevice, startTestServer, submitRegistration, TestServer } from './fixtures/test-server';
import { Storage } from '../apps/server/src/storage/storage.port';
import { AUDIT } from '../apps/server/src/storage/records';
import { AuditWriter } from '../apps/server/src/audit/audit-writer';

const OWNER = 'owner@refusals.test';
const MEMBER = 'member@refusals.test';
const MALLORY = 'mallory@refusals.test';
const VIEWER = 'viewer@refusals.test';

type Entry = { user: string; action: string; details: string; deviceId?: string | null; orgId?: string | null };

describe('refusals are audited where AccessPolicy decides them', () => {
  let idp: IdentityProviderHandle;
  let server: TestServer;
  const as = (email: string): Promise<Caller> => server.login(email);
  // Straight from storage: first the entries the writer still holds (it writes a turn after the request).
  const refusals = async (): Promise<Entry[]> => {
    await server.app.get(AuditWriter, { strict: false }).flush();
    return (await server.app.get(Storage).collection(AUDIT).find({ action: 'access.refused' })) as Entry[];
  };
  const deviceLog = async (deviceId: string, caller: Caller): Promise<Entry[]> =>
    (await server.api.post('/devices/audit-logs', { device: deviceId }, caller)).body.logs as Entry[];

  beforeAll(async () => {
    idp = await startIdentityProvider();
    server = await startTestServer(idp);
    expect((await server.api.post('/orgs', { id: 'refusals', email: OWNER }, server.admin)).status).toBe(201);
    expect((await server.api.post('/orgs/refusals/members', { email: MEMBER, role: 'editor' }, await as(OWNER))).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
    await idp?.stop();
  });

  it('a member who is not an admin approving for its organization: 403, audited under the device id', async () => {
    const request = await submitRegistration(server, 'refused-approval', 'org:refusals');
    const member = await as(MEMBER);
    expectError(await server.api.post('/devices/approve', { request_id: request.requestId }, member), 403, 'FORBIDDEN', /may not approve devices for org:refusals/);
    expect(await refusals()).toContainEqual(
      expect.objectContaining({ user: MEMBER, deviceId: 'refused-approval', details: expect.stringMatching(/^refused approving the registration: .*org:refusals/) }),
    );
    // The refusal decided nothing: the organization's admin still approves, and its log shows the attempt.
    expect((await server.api.post('/devices/approve', { request_id: request.requestId }, await as(OWNER))).status).toBe(200);
    expect(await deviceLog('refused-approval', await as(OWNER))).toContainEqual(expect.objectContaining({ user: MEMBER, action: 'access.refused' }));
  });

  it("a stranger squatting an id the owner's device asked for first: 409, audited, and the owner reads it once approved", async () => {
    const genuine = await submitRegistration(server, 'squatted-id', `user:${OWNER}`);
    server.clock.advance(1000);
    const squat = await submitRegistration(server, 'squatted-id', `user:${MALLORY}`);
    expectError(await server.api.post('/devices/approve', { request_id: squat.requestId }, await as(MALLORY)), 409, 'CONFLICT', /requested earlier for another owner/);
    expect(await refusals()).toContainEqual(
      expect.objectContaining({ user: MALLORY, deviceId: 'squatted-id', details: expect.stringMatching(/^refused claiming the device id: /) }),
    );
    expect((await server.api.post('/devices/approve', { request_id: genuine.requestId }, await as(OWNER))).status).toBe(200);
    const log = await deviceLog('squatted-id', await as(OWNER));
    expect(log).toContainEqual(expect.objectContaining({ user: MALLORY, action: 'access.refused' }));
    expect(JSON.stringify(log)).not.toContain(squat.requestId);
  });

  it("the organization's owner leaving it: 409, audited under the organization", async () => {
    expectError(await server.api.delete(`/orgs/refusals/members/${OWNER}`, await as(OWNER)), 409, 'CONFLICT', /owner cannot be removed/);
    expect(await refusals()).toContainEqual(expect.objectContaining({ user: OWNER, orgId: 'refusals', details: expect.stringMatching(/^refused leaving the organization: /) }));
    expect((await server.api.get('/orgs/refusals/members', await as(OWNER))).body).toContainEqual({ email: OWNER, role: 'admin' });
  });

  it('a viewer asking for a capability its role lacks: 403, audited with the capability', async () => {
    await registerDevice(server, 'viewed-only', `user:${OWNER}`, await as(OWNER));
    expect((await server.api.post('/devices/viewed-only/access', { email_or_org_id: VIEWER, role: 'viewer' }, await as(OWNER))).status).toBe(200);
    expectError(await server.api.post('/devices/viewed-only/access', { email_or_org_id: MALLORY, role: 'viewer' }, await as(VIEWER)), 403, 'FORBIDDEN', /does not allow device:manage/);
    expect(await refusals()).toContainEqual(expect.objectContaining({ user: VIEWER, deviceId: 'viewed-only', details: expect.stringMatching(/^refused device:manage: /) }));
  });

  it('a device hidden from the caller is "not found" and writes nothing (it does not exist for that caller)', async () => {
    const before = (await refusals()).length;
    expectError(await server.api.get('/devices/viewed-only/access', await as(MALLORY)), 404, 'DEVICE_NOT_FOUND');
    expect(await refusals()).toHaveLength(before);
  });

  it('a non-administrator creating an organization: 403, audited', async () => {
    expectError(await server.api.post('/orgs', { id: 'not-mine', email: MALLORY }, await as(MALLORY)), 403, 'FORBIDDEN', /Administrator privileges required/);
    expect(await refusals()).toContainEqual(expect.objectContaining({ user: MALLORY, details: expect.stringMatching(/^refused server:create-orgs: /) }));
  });
});
