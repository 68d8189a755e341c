/**
 * Refusals are audited where AccessPolicy decides them (docs/security.md, "One policy"): a member
 * who may not approve for its organization, a stranger squatting a device id an owner's device
 * asked for first, an organization's owner trying to leave it, a viewer trying to run a command,
 * the admin key acting on devices.
 * Each refusal answers as before and leaves an `access.refused` entry naming who and what.
 * Operations are called by name through the SDK.
 */
import { expectRefused } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import { submitRegistration } from './fixtures/test-server';
import { Storage } from '../apps/server/src/storage/storage.port';
import { AUDIT } from '../apps/server/src/storage/records';
import { AuditWriter } from '../apps/server/src/audit/audit-writer';

const OWNER = 'owner@refusals.test';
const MEMBER = 'member@refusals.test';
const MALLORY = 'mallory@refusals.test';
const VIEWER = 'viewer@refusals.test';

type Entry = { user: string; action: string; details: string; deviceId?: string | null; orgId?: string | null };

describe('refusals are audited where AccessPolicy decides them', () => {
  const fleet = useFleet({
    users: { owner: OWNER, member: MEMBER, mallory: MALLORY, viewer: VIEWER },
    orgs: { refusals: { owner: 'owner', members: { member: 'editor' } } },
  });
  const as = (persona: string) => fleet.user(persona);
  /** devices_approve as the REST operation (`svc devices approve --yes`), so that the server, not the client, refuses. */
  const approve = (persona: string, requestId: string) => as(persona).client.call('devices_approve', { device: requestId });
  // Straight from storage: first the entries the writer still holds (it writes a turn after the request).
  const refusals = async (): Promise<Entry[]> => {
    await fleet.server.app.get(AuditWriter, { strict: false }).flush();
    return (await fleet.server.app.get(Storage).collection(AUDIT).find({ action: 'access.refused' })) as Entry[];
  };
  const deviceLog = async (deviceId: string, persona: string): Promise<Entry[]> => ((await fleet.user(persona).run('device_audit_logs', { device: deviceId })) as { logs: Entry[] }).logs;

  it('a member who is not an admin approving for its organization: 403, audited under the device id', async () => {
    const request = await submitRegistration(fleet.server, 'refused-approval', 'org:refusals');
    await expectRefused(approve('member', request.requestId), 403, 'FORBIDDEN', /may not approve devices for org:refusals/);
    expect(await refusals()).toContainEqual(
      expect.objectContaining({ user: MEMBER, deviceId: 'refused-approval', details: expect.stringMatching(/^refused approving the registration: .*org:refusals/) }),
    );
    // The refusal decided nothing: the organization's admin still approves, and its log shows the attempt.
    await fleet.user('owner').run('devices_approve', { device: request.requestId });
    expect(await deviceLog('refused-approval', 'owner')).toContainEqual(expect.objectContaining({ user: MEMBER, action: 'access.refused' }));
  });

  it("a stranger squatting an id the owner's device asked for first: 409, audited, and the owner reads it once approved", async () => {
    const genuine = await submitRegistration(fleet.server, 'squatted-id', `user:${OWNER}`);
    fleet.server.clock.advance(1000);
    const squat = await submitRegistration(fleet.server, 'squatted-id', `user:${MALLORY}`);
    await expectRefused(approve('mallory', squat.requestId), 409, 'CONFLICT', /requested earlier for another owner/);
    expect(await refusals()).toContainEqual(
      expect.objectContaining({ user: MALLORY, deviceId: 'squatted-id', details: expect.stringMatching(/^refused claiming the device id: /) }),
    );
    await fleet.user('owner').run('devices_approve', { device: genuine.requestId });
    const log = await deviceLog('squatted-id', 'owner');
    expect(log).toContainEqual(expect.objectContaining({ user: MALLORY, action: 'access.refused' }));
    expect(JSON.stringify(log)).not.toContain(squat.requestId);
  });

  it("the organization's owner leaving it: 409, audited under the organization", async () => {
    await expectRefused(as('owner').run('org_members_remove', { org_id: 'refusals', email: OWNER }), 409, 'CONFLICT', /owner cannot be removed/);
    expect(await refusals()).toContainEqual(expect.objectContaining({ user: OWNER, orgId: 'refusals', details: expect.stringMatching(/^refused leaving the organization: /) }));
    expect(await fleet.user('owner').run('org_members_list', { org_id: 'refusals' })).toContainEqual({ email: OWNER, role: 'admin' });
  });

  it('a viewer asking for a capability its role lacks: 403, audited with the capability', async () => {
    await fleet.addDevice('viewed-only', { owner: 'owner', shares: { viewer: 'viewer' } });
    await expectRefused(as('viewer').run('device_access_add', { device: 'viewed-only', email_or_org_id: MALLORY, role: 'viewer' }), 403, 'FORBIDDEN', /does not allow device:manage/);
    expect(await refusals()).toContainEqual(expect.objectContaining({ user: VIEWER, deviceId: 'viewed-only', details: expect.stringMatching(/^refused device:manage: /) }));
  });

  it('a device hidden from the caller is "not found" and writes nothing (it does not exist for that caller)', async () => {
    const before = (await refusals()).length;
    await expectRefused(as('mallory').run('device_access_list', { device: 'viewed-only' }), 404, 'DEVICE_NOT_FOUND');
    expect(await refusals()).toHaveLength(before);
  });

  it('the admin key on a user-only route or a device decision: 403, audited (AccessPolicy.requireUser)', async () => {
    await fleet.addDevice('keyed-out', { owner: 'owner' });
    const before = (await refusals()).filter((entry) => entry.user === 'admin-key').length;
    await expectRefused(fleet.admin.run('devices_list', {}), 403, 'FORBIDDEN', /admin key cannot act on devices/);
    // A route that lets the admin key in, whose device is decided by AccessPolicy.
    await expectRefused(fleet.admin.run('device_capabilities', { device: 'keyed-out' }), 403, 'FORBIDDEN', /not a device credential/);
    const entries = (await refusals()).filter((entry) => entry.user === 'admin-key');
    expect(entries.slice(before)).toEqual([
      expect.objectContaining({ details: expect.stringMatching(/^refused acting on devices: .*admin key cannot act on devices/) }),
      expect.objectContaining({ details: expect.stringMatching(/^refused acting on devices: /) }),
    ]);
  });

  it('a non-administrator creating an organization: 403, audited', async () => {
    await expectRefused(as('mallory').run('org_create', { id: 'not-mine', email: MALLORY }), 403, 'FORBIDDEN', /Administrator privileges required/);
    expect(await refusals()).toContainEqual(expect.objectContaining({ user: MALLORY, details: expect.stringMatching(/^refused server:create-orgs: /) }));
  });
});
