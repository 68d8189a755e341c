import { Reflector } from '@nestjs/core';
import { Capability, capabilitiesOf, DomainError, isDeviceCapability, isOrgCapability, OPERATIONS, OperationContract, OrgRole, roleAllows } from '@svc/common';
import type { ServerConfig } from '../config/server-config';
import type { DeviceRecord, OrgRecord } from '../storage/records';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from './access-policy.service';
import { OperationGuard } from './operation-guard';
import type { RefusalAudit } from './refusal-audit';

/*
 * The guard enforces what the catalog entry says, through the real AccessPolicy: for every
 * operation whose route carries its `device`, a caller with each role is let through exactly when
 * roles.ts gives that role the entry's capability.
 */

const ME = 'me@guard.test';
const DEVICE: DeviceRecord = {
  id: 'dev-1',
  name: 'dev-1',
  ownerScope: 'user:owner@guard.test',
  allowedScopes: [`user:${ME}`],
  shares: [],
  info: {} as DeviceRecord['info'],
  apiKeyHash: 'x',
  createdAt: new Date(0),
  approvedBy: 'owner@guard.test',
  lastSeen: null,
  historySince: new Date(0),
  publicKey: null,
  fingerprint: null,
};
const ORG: OrgRecord = { id: 'crew', owner: 'owner@guard.test', createdAt: new Date(0) };

function guardFor(role: OrgRole, refusals: string[]) {
  const device = { ...DEVICE, shares: [{ scope: `user:${ME}`, role }] };
  const devices = { referencedBy: async (_scopes: unknown, ref: string) => (ref === device.id ? [device] : []) };
  const orgs = { findById: async (id: string) => (id === ORG.id ? ORG : null) };
  const audit: Pick<RefusalAudit, 'refused'> = {
    refused: async (_who, what, _subject, error) => {
      refusals.push(what);
      return error;
    },
  };
  const policy = new AccessPolicy({ allowCrossOrgDeviceSharing: true } as ServerConfig, devices as never, orgs as never, {} as never, audit as RefusalAudit);
  return new OperationGuard(new Reflector(), policy);
}

const principal = (role: OrgRole): UserPrincipal => ({ kind: 'user', email: ME, scopes: [`user:${ME}`, 'org:crew'], memberships: [{ orgId: 'crew', role }], admin: false });

/** Operations whose whole check is one device capability on a `{device}` of their route. */
const DEVICE_ROUTED = (OPERATIONS as readonly OperationContract[]).filter(
  (op) => op.http?.path.includes('{device}') && capabilitiesOf(op).length === 1 && isDeviceCapability(capabilitiesOf(op)[0]),
);

describe('OperationGuard', () => {
  it('covers the device operations of the catalog', () => {
    expect(DEVICE_ROUTED.map((op) => op.name)).toEqual(expect.arrayContaining(['device_access_list', 'device_access_add', 'device_rename', 'device_deployment_new', 'device_deployment_show']));
  });

  describe.each(['admin', 'member', 'viewer'] as const)('a caller with the %s role on the device', (role) => {
    it.each(DEVICE_ROUTED.map((op) => [op.name, op] as const))('%s: allowed exactly when the role holds the catalog capability', async (_name, op) => {
      const capability = capabilitiesOf(op)[0] as Capability;
      const refusals: string[] = [];
      const outcome = await guardFor(role, refusals)
        .authorize(principal(role), op.name as never, { params: { device: 'dev-1' }, query: {}, body: {} })
        .then(
          (targets) => targets.device?.device.id,
          (error: DomainError) => error.code,
        );
      expect(outcome).toBe(roleAllows(role, capability) ? 'dev-1' : 'FORBIDDEN');
      expect(refusals).toEqual(roleAllows(role, capability) ? [] : [capability]);
    });
  });

  it("denies with the catalog's capability: a viewer renaming a device is refused device:manage", async () => {
    const refusals: string[] = [];
    await expect(guardFor('viewer', refusals).authorize(principal('viewer'), 'device_rename', { params: { device: 'dev-1' }, query: {}, body: {} })).rejects.toThrow(
      'Access denied: your role (viewer) does not allow device:manage',
    );
    expect(refusals).toEqual(['device:manage']);
  });

  it('decides the organization first, then the device, for an organization device move', async () => {
    const refusals: string[] = [];
    const op = OPERATIONS.find((o) => o.name === 'org_devices_add')!;
    expect(capabilitiesOf(op).map((c) => (isOrgCapability(c) ? 'org' : 'device'))).toEqual(['org', 'device']);
    await expect(guardFor('member', refusals).authorize(principal('member'), 'org_devices_add', { params: { org_id: 'crew' }, query: {}, body: { device: 'dev-1' } })).rejects.toThrow(
      /organization admin role required/,
    );
    expect(refusals).toEqual(['org:move-devices']);
  });

  it('answers 400 when the target parameter is missing, before any decision', async () => {
    await expect(guardFor('admin', []).authorize(principal('admin'), 'device_rename', { params: {}, query: {}, body: {} })).rejects.toThrow('device must be a non-empty string');
  });
});
