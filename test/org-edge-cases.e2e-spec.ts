/**
 * Organization changes that must carry everything tied to the organization along with them:
 * pending registrations on rename and delete, personal shares when a member leaves, and the
 * limits on sharing with and moving devices into organizations. Operations are called by name
 * through the SDK.
 */
import { expectRefused } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import { pollRegistration, registerDevice, requestRegistration, TestServer } from './fixtures/test-server';

describe('organization edge cases', () => {
  const fleet = useFleet({});
  let server: TestServer;
  const as = (email: string) => fleet.as(email);

  beforeAll(() => {
    server = fleet.server;
  });

  it('renaming an organization carries its pending registrations to the new id', async () => {
    await fleet.admin.run('org_create', { id: 'ren-a', email: 'ren@edge.test' });
    const admin = await as('ren@edge.test');
    const requestId = await requestRegistration(server, 'edge-ren-1', 'org:ren-a');
    expect(await admin.run('org_update', { id: 'ren-a', new_id: 'ren-b' })).toEqual({ status: 'updated' });
    const pending = (await admin.run('devices_list', {})).find((d) => d.id === requestId);
    expect(pending).toMatchObject({ status: 'pending', owner: 'org:ren-b' });
    await admin.run('devices_approve', { device: requestId });
    expect(await admin.run('devices_list', {})).toContainEqual(expect.objectContaining({ id: 'edge-ren-1', owner: 'org:ren-b' }));
  });

  it('deleting an organization rejects its pending registrations', async () => {
    await fleet.admin.run('org_create', { id: 'del-a', email: 'del@edge.test' });
    const requestId = await requestRegistration(server, 'edge-del-1', 'org:del-a');
    expect(await (await as('del@edge.test')).run('org_delete', { id: 'del-a' })).toEqual({ status: 'deleted' });
    expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'rejected' });
  });

  it('a member who leaves loses the personal shares on the organization\'s devices', async () => {
    await fleet.admin.run('org_create', { id: 'leave-a', email: 'lboss@edge.test' });
    await fleet.admin.run('org_members_add', { org_id: 'leave-a', email: 'leaver@edge.test', role: 'viewer' });
    const boss = await as('lboss@edge.test');
    const leaver = await as('leaver@edge.test');
    await registerDevice(server, 'edge-leave-1', 'org:leave-a', boss.caller);
    await boss.run('device_access_add', { device: 'edge-leave-1', email_or_org_id: 'leaver@edge.test', role: 'editor' });
    expect(await boss.run('org_members_remove', { org_id: 'leave-a', email: 'leaver@edge.test' })).toEqual({ status: 'removed' });
    // The server re-reads memberships on each request; the token stays valid.
    await expectRefused(leaver.route('device_status.one', { device: 'edge-leave-1' }), 404);
    expect(await boss.run('device_access_list', { device: 'edge-leave-1' })).toEqual([]);
  });

  it('refuses to share with an organization that does not exist', async () => {
    const alice = await as('alice@edge.test');
    await registerDevice(server, 'edge-share-1', 'user:alice@edge.test', alice.caller);
    await expectRefused(alice.run('device_access_add', { device: 'edge-share-1', email_or_org_id: 'not-yet-created', role: 'viewer' }), 404, 'NOT_FOUND', /^Organization not found$/);
  });

  it('an admin share does not allow moving someone else\'s device into an organization', async () => {
    await fleet.admin.run('org_create', { id: 'grab', email: 'grabber@edge.test' });
    const owner = await as('owner@edge.test');
    const grabber = await as('grabber@edge.test');
    await registerDevice(server, 'edge-move-1', 'user:owner@edge.test', owner.caller);
    await owner.run('device_access_add', { device: 'edge-move-1', email_or_org_id: 'grabber@edge.test', role: 'admin' });
    await expectRefused(grabber.run('org_devices_add', { org_id: 'grab', device: 'edge-move-1' }), 403, undefined, /only the owner/);
    expect(await owner.run('devices_list', {})).toContainEqual(expect.objectContaining({ id: 'edge-move-1', owner: 'user:owner@edge.test' }));
  });

  it('names roles in refusals the way tools do (editor, not member)', async () => {
    const owner = await as('owner@edge.test');
    await registerDevice(server, 'edge-role-1', 'user:owner@edge.test', owner.caller);
    await owner.run('device_access_add', { device: 'edge-role-1', email_or_org_id: 'ed@edge.test', role: 'editor' });
    const refused = (await as('ed@edge.test')).run('device_access_add', { device: 'edge-role-1', email_or_org_id: 'x@edge.test', role: 'viewer' });
    await expectRefused(refused, 403, undefined, /^Access denied: your role \(editor\) does not allow device:manage$/);
  });
});
