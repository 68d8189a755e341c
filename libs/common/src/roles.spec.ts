import {
  CAPABILITIES,
  Capability,
  isToolRole,
  ORG_CAPABILITIES,
  ORG_RELATIONS,
  ORG_ROLES,
  OrgCapability,
  OrgRelation,
  OrgRole,
  relationAllows,
  roleAllows,
  strongerRole,
  TOOL_ROLES,
  ToolRole,
  toOrgRole,
  toToolRole,
  weakerRole,
} from './roles';

describe('role names', () => {
  it.each<[ToolRole, OrgRole]>([
    ['admin', 'admin'],
    ['editor', 'member'],
    ['viewer', 'viewer'],
  ])('tool role %s ↔ organization role %s', (tool, org) => {
    expect(toOrgRole(tool)).toBe(org);
    expect(toToolRole(org)).toBe(tool);
  });

  it('maps both sets one to one', () => {
    expect(TOOL_ROLES.map(toOrgRole)).toEqual([...ORG_ROLES]);
    expect(ORG_ROLES.map(toToolRole)).toEqual([...TOOL_ROLES]);
  });

  it.each<[unknown, boolean]>([
    ['admin', true],
    ['editor', true],
    ['viewer', true],
    ['member', false],
    ['Admin', false],
    ['owner', false],
    ['', false],
    [undefined, false],
    [null, false],
    [1, false],
  ])('isToolRole(%j) → %s', (value, expected) => {
    expect(isToolRole(value)).toBe(expected);
  });
});

describe('capabilities', () => {
  // The matrix, written out: viewers only look; members do everything but manage; admins all but
  // own. No role grants `device:own`: only ownership does (see access.ts), so no share can.
  const MATRIX: Record<Capability, Record<OrgRole, boolean>> = {
    'device:view': { admin: true, member: true, viewer: true },
    'device:exec': { admin: true, member: true, viewer: false },
    'device:forward': { admin: true, member: true, viewer: false },
    'device:read-files': { admin: true, member: true, viewer: false },
    'device:write-files': { admin: true, member: true, viewer: false },
    'device:deploy': { admin: true, member: true, viewer: false },
    'device:manage': { admin: true, member: false, viewer: false },
    'device:own': { admin: false, member: false, viewer: false },
  };

  it('covers every capability', () => {
    expect(Object.keys(MATRIX).sort()).toEqual([...CAPABILITIES].sort());
  });

  const cells = CAPABILITIES.flatMap((cap) => ORG_ROLES.map((role): [OrgRole, Capability, boolean] => [role, cap, MATRIX[cap][role]]));
  it.each(cells)('%s may %s: %s', (role, capability, allowed) => {
    expect(roleAllows(role, capability)).toBe(allowed);
  });
});

describe('organization capabilities', () => {
  // Server administrators run organizations but reach none of their devices through that.
  const MATRIX: Record<OrgCapability, Record<OrgRelation, boolean>> = {
    'org:view': { owner: true, admin: true, member: true, viewer: true, 'server-admin': true },
    'org:devices': { owner: true, admin: true, member: true, viewer: true, 'server-admin': false },
    'org:manage': { owner: true, admin: true, member: false, viewer: false, 'server-admin': true },
    'org:move-devices': { owner: true, admin: true, member: false, viewer: false, 'server-admin': false },
    'org:delete': { owner: true, admin: false, member: false, viewer: false, 'server-admin': true },
  };

  it('covers every capability', () => {
    expect(Object.keys(MATRIX).sort()).toEqual([...ORG_CAPABILITIES].sort());
  });

  const cells = ORG_CAPABILITIES.flatMap((cap) => ORG_RELATIONS.map((rel): [OrgRelation, OrgCapability, boolean] => [rel, cap, MATRIX[cap][rel]]));
  it.each(cells)('%s may %s: %s', (relation, capability, allowed) => {
    expect(relationAllows(relation, capability)).toBe(allowed);
  });
});

describe('role strength', () => {
  it.each<[OrgRole | null, OrgRole | null, OrgRole | null]>([
    [null, null, null],
    [null, 'viewer', 'viewer'],
    ['member', null, 'member'],
    ['viewer', 'member', 'member'],
    ['admin', 'member', 'admin'],
    ['viewer', 'admin', 'admin'],
    ['member', 'member', 'member'],
  ])('strongerRole(%s, %s) → %s', (a, b, expected) => {
    expect(strongerRole(a, b)).toBe(expected);
    expect(strongerRole(b, a)).toBe(expected);
  });

  it.each<[OrgRole, OrgRole, OrgRole]>([
    ['viewer', 'admin', 'viewer'],
    ['member', 'admin', 'member'],
    ['member', 'viewer', 'viewer'],
    ['admin', 'admin', 'admin'],
  ])('weakerRole(%s, %s) → %s', (a, b, expected) => {
    expect(weakerRole(a, b)).toBe(expected);
    expect(weakerRole(b, a)).toBe(expected);
  });
});
