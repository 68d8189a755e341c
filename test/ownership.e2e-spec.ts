/**
 * Ownership changes: re-registration (re-key), moves into and out of organizations and
 * organization deletion follow one rule. Only the owner (the owning user, or an admin of the owning
 * organization) changes the owner, only to a scope it speaks for, and the shares are dropped.
 * Operations are called by name through the SDK; approval as `svc devices approve --yes` sends it
 * (these approvals replace keys, which `svc mcp` leaves to a person).
 */
import { generateDeviceIdentity } from '@svc/common';
import { expectRefused } from './fixtures/expect-error';
import { FleetUser, useFleet } from './fixtures/fleet';
import { pollRegistration, registerDevice, requestRegistration, TestServer } from './fixtures/test-server';

describe('ownership', () => {
  const fleet = useFleet({
    orgs: { fleet: { owner: 'fadmin@own.test', members: { 'fadmin2@own.test': 'admin', 'feditor@own.test': 'editor', 'fviewer@own.test': 'viewer' } } },
  });
  let server: TestServer;
  const as = (email: string) => fleet.as(email);
  const share = (device: string, who: string, role: string, caller: FleetUser) => caller.run('device_access_add', { device, email_or_org_id: who, role });
  const ownerOf = async (device: string, caller: FleetUser) => (await caller.run('devices_list', {})).find((d) => d.id === device)?.owner;
  const accessOf = (device: string, caller: FleetUser) => caller.run('device_access_list', { device });
  const approve = (requestId: string, caller: FleetUser) => caller.client.call('devices_approve', { device: requestId });
  const status = (device: string, caller: FleetUser) => caller.route('device_status.one', { device });
  const keyOf = async (requestId: string) => (await pollRegistration(server, requestId)).body.api_key;

  beforeAll(() => {
    server = fleet.server;
  });

  describe('re-registration of a known device id', () => {
    it('an admin share re-keys the device but does not take it: the owner stays', async () => {
      const alice = await as('alice@own.test');
      const bob = await as('bob@own.test');
      const identity = generateDeviceIdentity();
      const oldKey = await registerDevice(server, 'own-take', 'user:alice@own.test', alice.caller, { identity });
      await share('own-take', 'bob@own.test', 'admin', alice);

      const requestId = await requestRegistration(server, 'own-take', 'user:bob@own.test', { identity });
      await approve(requestId, bob);
      const newKey = await keyOf(requestId);
      expect(newKey).toMatch(/^svc_/);
      expect(newKey).not.toBe(oldKey);

      expect(await ownerOf('own-take', alice)).toBe('user:alice@own.test');
      expect(await accessOf('own-take', alice)).toEqual([{ email: 'bob@own.test', role: 'admin' }]);
      await status('own-take', alice);
    });

    it('an org editor with a personal admin share does not take the organization\'s device', async () => {
      const fadmin = await as('fadmin@own.test');
      const feditor = await as('feditor@own.test');
      const identity = generateDeviceIdentity();
      await registerDevice(server, 'own-org-take', 'org:fleet', fadmin.caller, { identity });
      await share('own-org-take', 'feditor@own.test', 'admin', fadmin);

      const requestId = await requestRegistration(server, 'own-org-take', 'user:feditor@own.test', { identity });
      await approve(requestId, feditor);
      expect(await ownerOf('own-org-take', fadmin)).toBe('org:fleet');
      expect(await (await as('fviewer@own.test')).run('org_devices_list', { org_id: 'fleet' })).toContainEqual(expect.objectContaining({ id: 'own-org-take' }));
    });

    it('a share without manage may not re-key; a stranger finds the id taken', async () => {
      const alice = await as('alice@own.test');
      const identity = generateDeviceIdentity();
      await registerDevice(server, 'own-view', 'user:alice@own.test', alice.caller, { identity });
      await share('own-view', 'vic@own.test', 'viewer', alice);
      const byViewer = await requestRegistration(server, 'own-view', 'user:vic@own.test', { identity });
      await expectRefused(approve(byViewer, await as('vic@own.test')), 403, 'FORBIDDEN', /device:manage/);
      const byStranger = await requestRegistration(server, 'own-view', 'user:mallory@own.test');
      await expectRefused(approve(byStranger, await as('mallory@own.test')), 409, 'CONFLICT', /already registered/);
      expect(await ownerOf('own-view', alice)).toBe('user:alice@own.test');
    });

    it('the owner moves it into an organization it administers; the shares are dropped', async () => {
      const fadmin = await as('fadmin@own.test');
      await registerDevice(server, 'own-in', 'user:fadmin@own.test', fadmin.caller);
      await share('own-in', 'fviewer@own.test', 'editor', fadmin);

      const requestId = await requestRegistration(server, 'own-in', 'org:fleet');
      await approve(requestId, fadmin);
      expect(await ownerOf('own-in', fadmin)).toBe('org:fleet');
      expect(await accessOf('own-in', fadmin)).toEqual([]);
    });

    it('the owner may not move it into an organization while it is shared outside (cross-org sharing off)', async () => {
      const fadmin = await as('fadmin@own.test');
      await registerDevice(server, 'own-leaky', 'user:fadmin@own.test', fadmin.caller);
      await share('own-leaky', 'outsider@elsewhere.test', 'viewer', fadmin);

      const requestId = await requestRegistration(server, 'own-leaky', 'org:fleet');
      await expectRefused(approve(requestId, fadmin), 409, 'CONFLICT', /outside fleet/);
      expect(await ownerOf('own-leaky', fadmin)).toBe('user:fadmin@own.test');
      expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'pending' });
    });
  });

  describe('organization moves', () => {
    it('moving a device in drops all its shares', async () => {
      const fadmin = await as('fadmin@own.test');
      await registerDevice(server, 'own-move-in', 'user:fadmin@own.test', fadmin.caller);
      await share('own-move-in', 'feditor@own.test', 'viewer', fadmin);
      await share('own-move-in', 'fleet', 'viewer', fadmin);
      expect(await fadmin.run('org_devices_add', { org_id: 'fleet', device: 'own-move-in' })).toEqual({ status: 'added' });
      expect(await ownerOf('own-move-in', fadmin)).toBe('org:fleet');
      expect(await accessOf('own-move-in', fadmin)).toEqual([]);
    });

    it('taking a device out passes it to the calling admin and drops all its shares; editors may not', async () => {
      const fadmin = await as('fadmin@own.test');
      await registerDevice(server, 'own-move-out', 'org:fleet', fadmin.caller);
      await share('own-move-out', 'feditor@own.test', 'admin', fadmin);
      await expectRefused((await as('feditor@own.test')).run('org_devices_remove', { org_id: 'fleet', device: 'own-move-out' }), 403, 'FORBIDDEN');

      const fadmin2 = await as('fadmin2@own.test');
      expect(await fadmin2.run('org_devices_remove', { org_id: 'fleet', device: 'own-move-out' })).toEqual({ status: 'removed' });
      expect(await ownerOf('own-move-out', fadmin2)).toBe('user:fadmin2@own.test');
      expect(await accessOf('own-move-out', fadmin2)).toEqual([]);
      await expectRefused(status('own-move-out', await as('feditor@own.test')), 404, 'DEVICE_NOT_FOUND');
    });

    it('deleting an organization hands its devices to the owner without their shares', async () => {
      await fleet.admin.run('org_create', { id: 'gone', email: 'gboss@own.test' });
      await fleet.admin.run('org_members_add', { org_id: 'gone', email: 'gmember@own.test', role: 'viewer' });
      const gboss = await as('gboss@own.test');
      await registerDevice(server, 'own-gone', 'org:gone', gboss.caller);
      await share('own-gone', 'gmember@own.test', 'editor', gboss);
      expect(await fleet.admin.run('org_delete', { id: 'gone' })).toEqual({ status: 'deleted' });
      expect(await ownerOf('own-gone', gboss)).toBe('user:gboss@own.test');
      expect(await accessOf('own-gone', gboss)).toEqual([]);
      await expectRefused(status('own-gone', await as('gmember@own.test')), 404, 'DEVICE_NOT_FOUND');
    });
  });
});
