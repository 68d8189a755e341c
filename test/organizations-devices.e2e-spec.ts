/**
 * Devices and organizations: org_devices_list / add / remove, role semantics of org members on
 * org-owned devices, and ALLOW_CROSS_ORG_DEVICE_SHARING off (default) and on (a second server).
 * Operations are called by name through the SDK.
 */
import { expectRefused } from './fixtures/expect-error';
import { FleetSpec, OperationClient, useFleet } from './fixtures/fleet';
import { registerDevice, requestRegistration, TestServer } from './fixtures/test-server';

const share = (device: string, who: string, role: string, caller: OperationClient) => caller.run('device_access_add', { device, email_or_org_id: who, role });
const addToFleet = (device: string, caller: OperationClient) => caller.run('org_devices_add', { org_id: 'fleet', device });
const removeFromFleet = (device: string, caller: OperationClient) => caller.run('org_devices_remove', { org_id: 'fleet', device });
const status = (device: string, caller: OperationClient) => caller.route('device_status.one', { device });
const access = (device: string, caller: OperationClient) => caller.run('device_access_list', { device });

/** Organization `fleet` (an admin, an editor, a viewer besides its owner) and `other`. */
const orgsOn = (env: Record<string, string>): FleetSpec => ({
  env: { REGISTRATION_RATE_LIMIT: '1000', ...env },
  orgs: {
    fleet: { owner: 'fadmin@fleet.test', members: { 'fadmin2@fleet.test': 'admin', 'feditor@fleet.test': 'editor', 'fviewer@fleet.test': 'viewer' } },
    other: { owner: 'oboss@fleet.test' },
  },
});

describe('organizations and devices', () => {
  const fleet = useFleet(orgsOn({}));
  let server: TestServer;
  const as = (email: string) => fleet.as(email);
  const owners = async (caller: OperationClient) => Object.fromEntries((await caller.run('devices_list', {})).map((d) => [d.id, d.owner]));

  beforeAll(() => {
    server = fleet.server;
  });

  describe('org_devices_add', () => {
    it('moves a device its manager owns into the organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-1', 'user:fadmin@fleet.test', fadmin.caller);
      expect(await addToFleet('od-1', fadmin)).toEqual({ status: 'added' });
      expect((await owners(fadmin))['od-1']).toBe('org:fleet');
      const listed = await (await as('fviewer@fleet.test')).run('org_devices_list', { org_id: 'fleet' });
      expect(listed).toContainEqual({ id: 'od-1', name: 'od-1', status: 'offline' });
      await expectRefused(addToFleet('od-1', fadmin), 409, 'CONFLICT');
    });

    it('accepts the device by name', async () => {
      const fadmin = await as('fadmin@fleet.test');
      const requestId = await requestRegistration(server, 'od-named-id', 'user:fadmin@fleet.test', 'named-box');
      await fadmin.run('devices_approve', { device: requestId });
      expect(await addToFleet('named-box', fadmin)).toEqual({ status: 'added' });
      expect((await owners(fadmin))['od-named-id']).toBe('org:fleet');
    });

    it('needs an organization admin who manages the device', async () => {
      const feditor = await as('feditor@fleet.test');
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-ed', 'user:feditor@fleet.test', feditor.caller);
      await expectRefused(addToFleet('od-ed', feditor), 403, 'FORBIDDEN');
      await expectRefused(addToFleet('od-ed', fadmin), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      await share('od-ed', 'fadmin@fleet.test', 'editor', feditor);
      await expectRefused(addToFleet('od-ed', fadmin), 403, 'FORBIDDEN');
      expect((await owners(feditor))['od-ed']).toBe('user:feditor@fleet.test');
    });

    it('hides the organization from non-members and refuses the admin key', async () => {
      const outsider = await as('outsider@elsewhere.test');
      await registerDevice(server, 'od-out', 'user:outsider@elsewhere.test', outsider.caller);
      await expectRefused(addToFleet('od-out', outsider), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(outsider.run('org_devices_list', { org_id: 'fleet' }), 404, 'NOT_FOUND', 'Organization not found');
      await expectRefused(addToFleet('od-1', fleet.admin), 403, 'FORBIDDEN');
    });

    it('folds an existing share with the organization into ownership and resets the other shares', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-fold', 'user:fadmin@fleet.test', fadmin.caller);
      await share('od-fold', 'fleet', 'viewer', fadmin);
      await share('od-fold', 'feditor@fleet.test', 'viewer', fadmin);
      expect(await addToFleet('od-fold', fadmin)).toEqual({ status: 'added' });
      expect(await access('od-fold', fadmin)).toEqual([]);
      expect((await owners(fadmin))['od-fold']).toBe('org:fleet');
    });

    it('refuses to move in a device shared outside the organization while cross-org sharing is off', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-leaky', 'user:fadmin@fleet.test', fadmin.caller);
      await share('od-leaky', 'outsider@elsewhere.test', 'viewer', fadmin);
      await expectRefused(addToFleet('od-leaky', fadmin), 409, 'CONFLICT', /outside fleet/);
      expect((await owners(fadmin))['od-leaky']).toBe('user:fadmin@fleet.test');
    });
  });

  describe('org_devices_remove', () => {
    it('passes an organization-owned device to the calling admin personally', async () => {
      const fadmin = await as('fadmin@fleet.test');
      const fadmin2 = await as('fadmin2@fleet.test');
      await registerDevice(server, 'od-out-1', 'org:fleet', fadmin.caller);
      expect(await removeFromFleet('od-out-1', fadmin2)).toEqual({ status: 'removed' });
      expect((await owners(fadmin2))['od-out-1']).toBe('user:fadmin2@fleet.test');
      await expectRefused(status('od-out-1', fadmin), 404, 'DEVICE_NOT_FOUND');
      expect(await fadmin.run('org_devices_list', { org_id: 'fleet' })).not.toContainEqual(expect.objectContaining({ id: 'od-out-1' }));
    });

    it('drops the share of a device only shared with the organization', async () => {
      const owner = await as('sharer@elsewhere.test');
      await registerDevice(server, 'od-sh', 'user:sharer@elsewhere.test', owner.caller);
      await share('od-sh', 'fleet', 'viewer', owner);
      await share('od-sh', 'friend@elsewhere.test', 'viewer', owner);
      const fadmin = await as('fadmin@fleet.test');
      expect(await fadmin.run('org_devices_list', { org_id: 'fleet' })).toContainEqual({ id: 'od-sh', name: 'od-sh', status: 'offline' });
      expect(await removeFromFleet('od-sh', fadmin)).toEqual({ status: 'removed' });
      expect(await access('od-sh', owner)).toEqual([{ email: 'friend@elsewhere.test', role: 'viewer' }]);
      expect((await owners(owner))['od-sh']).toBe('user:sharer@elsewhere.test');
      await expectRefused(status('od-sh', fadmin), 404, 'DEVICE_NOT_FOUND');
    });

    it('answers 404 for a device that is neither owned by nor shared with the organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-mine', 'user:fadmin@fleet.test', fadmin.caller);
      await expectRefused(removeFromFleet('od-mine', fadmin), 404, 'NOT_FOUND', 'Device is not in organization fleet');
      await expectRefused(removeFromFleet('no-such-device', fadmin), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      expect((await owners(fadmin))['od-mine']).toBe('user:fadmin@fleet.test');
    });

    it('refuses organization members without the admin role', async () => {
      await registerDevice(server, 'od-stay', 'org:fleet', (await as('fadmin@fleet.test')).caller);
      await expectRefused(removeFromFleet('od-stay', await as('feditor@fleet.test')), 403, 'FORBIDDEN');
      await expectRefused(removeFromFleet('od-stay', await as('fviewer@fleet.test')), 403, 'FORBIDDEN');
      expect((await owners(await as('fadmin@fleet.test')))['od-stay']).toBe('org:fleet');
    });
  });

  describe('roles of organization members on organization devices', () => {
    beforeAll(async () => {
      await registerDevice(server, 'od-roles', 'org:fleet', (await as('fadmin@fleet.test')).caller);
    });

    it('a viewer reads status, logs and access but may not manage access', async () => {
      const viewer = await as('fviewer@fleet.test');
      await status('od-roles', viewer);
      await viewer.route('device_audit_logs.one', { device: 'od-roles' });
      await access('od-roles', viewer);
      await expectRefused(share('od-roles', 'feditor@fleet.test', 'viewer', viewer), 403, 'FORBIDDEN', /viewer/);
    });

    it('an editor may not manage access either: manage is admin-only', async () => {
      const editor = await as('feditor@fleet.test');
      await status('od-roles', editor);
      await expectRefused(share('od-roles', 'fviewer@fleet.test', 'viewer', editor), 403, 'FORBIDDEN', /device:manage/);
      await expectRefused(editor.run('device_access_remove', { device: 'od-roles', email_or_org_id: 'fviewer@fleet.test' }), 403, 'FORBIDDEN');
    });

    it('an organization admin manages access', async () => {
      const fadmin2 = await as('fadmin2@fleet.test');
      expect(await share('od-roles', 'fviewer@fleet.test', 'editor', fadmin2)).toEqual({ status: 'added' });
      expect(await access('od-roles', fadmin2)).toEqual([{ email: 'fviewer@fleet.test', role: 'editor' }]);
    });
  });

  describe('ALLOW_CROSS_ORG_DEVICE_SHARING=false (default)', () => {
    beforeAll(async () => {
      await registerDevice(server, 'od-x', 'org:fleet', (await as('fadmin@fleet.test')).caller);
    });

    it('refuses sharing an organization device with a non-member or another organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      expect(server.config.allowCrossOrgDeviceSharing).toBe(false);
      await expectRefused(share('od-x', 'outsider@elsewhere.test', 'viewer', fadmin), 403, 'FORBIDDEN', /cross-organization sharing is disabled/);
      await expectRefused(share('od-x', 'other', 'viewer', fadmin), 403, 'FORBIDDEN', /cross-organization sharing is disabled/);
      await expectRefused(share('od-x', 'oboss@fleet.test', 'admin', fadmin), 403, 'FORBIDDEN');
      expect(await access('od-x', fadmin)).toEqual([]);
      await expectRefused(status('od-x', await as('outsider@elsewhere.test')), 404, 'DEVICE_NOT_FOUND');
    });

    it('allows sharing with a member of the organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      expect(await share('od-x', 'FViewer@Fleet.test', 'editor', fadmin)).toEqual({ status: 'added' });
      expect(await access('od-x', fadmin)).toEqual([{ email: 'fviewer@fleet.test', role: 'editor' }]);
    });
  });

  describe('ALLOW_CROSS_ORG_DEVICE_SHARING=true (second server)', () => {
    const openFleet = useFleet(orgsOn({ ALLOW_CROSS_ORG_DEVICE_SHARING: 'true' }));
    let open: TestServer;
    beforeAll(() => {
      open = openFleet.server;
    });

    it('allows sharing an organization device with non-members and other organizations', async () => {
      const fadmin = await openFleet.as('fadmin@fleet.test');
      await registerDevice(open, 'open-x', 'org:fleet', fadmin.caller);
      expect(await share('open-x', 'outsider@elsewhere.test', 'viewer', fadmin)).toEqual({ status: 'added' });
      expect(await share('open-x', 'other', 'editor', fadmin)).toEqual({ status: 'added' });
      const shares = await access('open-x', fadmin);
      expect(shares).toHaveLength(2);
      expect(shares).toEqual(expect.arrayContaining([{ email: 'outsider@elsewhere.test', role: 'viewer' }, { org_id: 'other', role: 'editor' }]));
      await status('open-x', await openFleet.as('outsider@elsewhere.test'));
      await status('open-x', await openFleet.as('oboss@fleet.test'));
    });
  });
});
