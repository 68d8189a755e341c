/**
 * Devices and organizations: org_devices_list / add / remove, role semantics of org members on
 * org-owned devices, and ALLOW_CROSS_ORG_DEVICE_SHARING off (default) and on (a second server).
 */
import { ApiResponse, Caller } from './fixtures/api-client';
import { expectError } from './fixtures/expect-error';
import { FleetSpec, useFleet } from './fixtures/fleet';
import { registerDevice, requestRegistration, TestServer } from './fixtures/test-server';

const share = (server: TestServer, device: string, who: string, role: string, caller: Caller) =>
  server.api.post(`/devices/${device}/access`, { email_or_org_id: who, role }, caller);

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
  const as = (email: string) => server.login(email);
  const owners = async (caller: Caller) =>
    Object.fromEntries(((await server.api.get('/devices', caller)).body as { id: string; owner: string }[]).map((d) => [d.id, d.owner]));

  beforeAll(() => {
    server = fleet.server;
  });

  describe('org_devices_add', () => {
    it('moves a device its manager owns into the organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-1', 'user:fadmin@fleet.test', fadmin);
      const res = await server.api.post('/orgs/fleet/devices', { device: 'od-1' }, fadmin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'added' });
      expect((await owners(fadmin))['od-1']).toBe('org:fleet');
      const listed = await server.api.get('/orgs/fleet/devices', await as('fviewer@fleet.test'));
      expect(listed.status).toBe(200);
      expect(listed.body).toContainEqual({ id: 'od-1', name: 'od-1', status: 'offline' });
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-1' }, fadmin), 409, 'CONFLICT');
    });

    it('accepts the device by name', async () => {
      const fadmin = await as('fadmin@fleet.test');
      const requestId = await requestRegistration(server, 'od-named-id', 'user:fadmin@fleet.test', 'named-box');
      await server.api.post('/devices/approve', { request_id: requestId }, fadmin);
      expect((await server.api.post('/orgs/fleet/devices', { device: 'named-box' }, fadmin)).body).toEqual({ status: 'added' });
      expect((await owners(fadmin))['od-named-id']).toBe('org:fleet');
    });

    it('needs an organization admin who manages the device', async () => {
      const feditor = await as('feditor@fleet.test');
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-ed', 'user:feditor@fleet.test', feditor);
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-ed' }, feditor), 403, 'FORBIDDEN');
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-ed' }, fadmin), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      expect((await share(server, 'od-ed', 'fadmin@fleet.test', 'editor', feditor)).status).toBe(200);
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-ed' }, fadmin), 403, 'FORBIDDEN');
      expect((await owners(feditor))['od-ed']).toBe('user:feditor@fleet.test');
    });

    it('hides the organization from non-members and refuses the admin key', async () => {
      const outsider = await as('outsider@elsewhere.test');
      await registerDevice(server, 'od-out', 'user:outsider@elsewhere.test', outsider);
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-out' }, outsider), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await server.api.get('/orgs/fleet/devices', outsider), 404, 'NOT_FOUND', 'Organization not found');
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-1' }, server.admin), 403, 'FORBIDDEN');
    });

    it('folds an existing share with the organization into ownership and resets the other shares', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-fold', 'user:fadmin@fleet.test', fadmin);
      await share(server, 'od-fold', 'fleet', 'viewer', fadmin);
      await share(server, 'od-fold', 'feditor@fleet.test', 'viewer', fadmin);
      expect((await server.api.post('/orgs/fleet/devices', { device: 'od-fold' }, fadmin)).body).toEqual({ status: 'added' });
      expect((await server.api.get('/devices/od-fold/access', fadmin)).body).toEqual([]);
      expect((await owners(fadmin))['od-fold']).toBe('org:fleet');
    });

    it('refuses to move in a device shared outside the organization while cross-org sharing is off', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-leaky', 'user:fadmin@fleet.test', fadmin);
      await share(server, 'od-leaky', 'outsider@elsewhere.test', 'viewer', fadmin);
      expectError(await server.api.post('/orgs/fleet/devices', { device: 'od-leaky' }, fadmin), 409, 'CONFLICT', /outside fleet/);
      expect((await owners(fadmin))['od-leaky']).toBe('user:fadmin@fleet.test');
    });
  });

  describe('org_devices_remove', () => {
    it('passes an organization-owned device to the calling admin personally', async () => {
      const fadmin = await as('fadmin@fleet.test');
      const fadmin2 = await as('fadmin2@fleet.test');
      await registerDevice(server, 'od-out-1', 'org:fleet', fadmin);
      const res = await server.api.delete('/orgs/fleet/devices/od-out-1', fadmin2);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'removed' });
      expect((await owners(fadmin2))['od-out-1']).toBe('user:fadmin2@fleet.test');
      expectError(await server.api.get('/devices/od-out-1/status', fadmin), 404, 'DEVICE_NOT_FOUND');
      expect((await server.api.get('/orgs/fleet/devices', fadmin)).body).not.toContainEqual(expect.objectContaining({ id: 'od-out-1' }));
    });

    it('drops the share of a device only shared with the organization', async () => {
      const owner = await as('sharer@elsewhere.test');
      await registerDevice(server, 'od-sh', 'user:sharer@elsewhere.test', owner);
      await share(server, 'od-sh', 'fleet', 'viewer', owner);
      await share(server, 'od-sh', 'friend@elsewhere.test', 'viewer', owner);
      const fadmin = await as('fadmin@fleet.test');
      expect((await server.api.get('/orgs/fleet/devices', fadmin)).body).toContainEqual({ id: 'od-sh', name: 'od-sh', status: 'offline' });
      expect((await server.api.delete('/orgs/fleet/devices/od-sh', fadmin)).body).toEqual({ status: 'removed' });
      expect((await server.api.get('/devices/od-sh/access', owner)).body).toEqual([{ email: 'friend@elsewhere.test', role: 'viewer' }]);
      expect((await owners(owner))['od-sh']).toBe('user:sharer@elsewhere.test');
      expectError(await server.api.get('/devices/od-sh/status', fadmin), 404, 'DEVICE_NOT_FOUND');
    });

    it('answers 404 for a device that is neither owned by nor shared with the organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      await registerDevice(server, 'od-mine', 'user:fadmin@fleet.test', fadmin);
      expectError(await server.api.delete('/orgs/fleet/devices/od-mine', fadmin), 404, 'NOT_FOUND', 'Device is not in organization fleet');
      expectError(await server.api.delete('/orgs/fleet/devices/no-such-device', fadmin), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      expect((await owners(fadmin))['od-mine']).toBe('user:fadmin@fleet.test');
    });

    it('refuses organization members without the admin role', async () => {
      await registerDevice(server, 'od-stay', 'org:fleet', await as('fadmin@fleet.test'));
      expectError(await server.api.delete('/orgs/fleet/devices/od-stay', await as('feditor@fleet.test')), 403, 'FORBIDDEN');
      expectError(await server.api.delete('/orgs/fleet/devices/od-stay', await as('fviewer@fleet.test')), 403, 'FORBIDDEN');
      expect((await owners(await as('fadmin@fleet.test')))['od-stay']).toBe('org:fleet');
    });
  });

  describe('roles of organization members on organization devices', () => {
    beforeAll(async () => {
      await registerDevice(server, 'od-roles', 'org:fleet', await as('fadmin@fleet.test'));
    });

    it('a viewer reads status, logs and access but may not manage access', async () => {
      const viewer = await as('fviewer@fleet.test');
      expect((await server.api.get('/devices/od-roles/status', viewer)).status).toBe(200);
      expect((await server.api.get('/devices/od-roles/audit-logs', viewer)).status).toBe(200);
      expect((await server.api.get('/devices/od-roles/access', viewer)).status).toBe(200);
      expectError(await share(server, 'od-roles', 'feditor@fleet.test', 'viewer', viewer), 403, 'FORBIDDEN', /viewer/);
    });

    it('an editor may not manage access either: manage is admin-only', async () => {
      const editor = await as('feditor@fleet.test');
      expect((await server.api.get('/devices/od-roles/status', editor)).status).toBe(200);
      expectError(await share(server, 'od-roles', 'fviewer@fleet.test', 'viewer', editor), 403, 'FORBIDDEN', /device:manage/);
      expectError(await server.api.delete('/devices/od-roles/access/fviewer@fleet.test', editor), 403, 'FORBIDDEN');
    });

    it('an organization admin manages access', async () => {
      const fadmin2 = await as('fadmin2@fleet.test');
      expect((await share(server, 'od-roles', 'fviewer@fleet.test', 'editor', fadmin2)).body).toEqual({ status: 'added' });
      expect((await server.api.get('/devices/od-roles/access', fadmin2)).body).toEqual([{ email: 'fviewer@fleet.test', role: 'editor' }]);
    });
  });

  describe('ALLOW_CROSS_ORG_DEVICE_SHARING=false (default)', () => {
    beforeAll(async () => {
      await registerDevice(server, 'od-x', 'org:fleet', await as('fadmin@fleet.test'));
    });

    it('refuses sharing an organization device with a non-member or another organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      expect(server.config.allowCrossOrgDeviceSharing).toBe(false);
      expectError(await share(server, 'od-x', 'outsider@elsewhere.test', 'viewer', fadmin), 403, 'FORBIDDEN', /cross-organization sharing is disabled/);
      expectError(await share(server, 'od-x', 'other', 'viewer', fadmin), 403, 'FORBIDDEN', /cross-organization sharing is disabled/);
      expectError(await share(server, 'od-x', 'oboss@fleet.test', 'admin', fadmin), 403, 'FORBIDDEN');
      expect((await server.api.get('/devices/od-x/access', fadmin)).body).toEqual([]);
      expectError(await server.api.get('/devices/od-x/status', await as('outsider@elsewhere.test')), 404, 'DEVICE_NOT_FOUND');
    });

    it('allows sharing with a member of the organization', async () => {
      const fadmin = await as('fadmin@fleet.test');
      expect((await share(server, 'od-x', 'FViewer@Fleet.test', 'editor', fadmin)).body).toEqual({ status: 'added' });
      expect((await server.api.get('/devices/od-x/access', fadmin)).body).toEqual([{ email: 'fviewer@fleet.test', role: 'editor' }]);
    });
  });

  describe('ALLOW_CROSS_ORG_DEVICE_SHARING=true (second server)', () => {
    const openFleet = useFleet(orgsOn({ ALLOW_CROSS_ORG_DEVICE_SHARING: 'true' }));
    let open: TestServer;
    beforeAll(() => {
      open = openFleet.server;
    });

    it('allows sharing an organization device with non-members and other organizations', async () => {
      const fadmin = await open.login('fadmin@fleet.test');
      await registerDevice(open, 'open-x', 'org:fleet', fadmin);
      expect((await share(open, 'open-x', 'outsider@elsewhere.test', 'viewer', fadmin)).body).toEqual({ status: 'added' });
      expect((await share(open, 'open-x', 'other', 'editor', fadmin)).body).toEqual({ status: 'added' });
      const access = (await open.api.get('/devices/open-x/access', fadmin)).body;
      expect(access).toHaveLength(2);
      expect(access).toEqual(expect.arrayContaining([{ email: 'outsider@elsewhere.test', role: 'viewer' }, { org_id: 'other', role: 'editor' }]));
      expect((await open.api.get('/devices/open-x/status', await open.login('outsider@elsewhere.test'))).status).toBe(200);
      expect((await open.api.get('/devices/open-x/status', await open.login('oboss@fleet.test'))).status).toBe(200);
    });
  });
});
