/**
 * Roles and what they may do: one table, used by the server's services, the CLI and the MCP tools.
 *
 * Organization roles are `admin`, `member`, `viewer`; tool parameters speak `admin`, `editor`,
 * `viewer`. `editor` is the tool-facing name of `member`: same capabilities, mapped 1:1.
 */
export const ORG_ROLES = ['admin', 'member', 'viewer'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export const TOOL_ROLES = ['admin', 'editor', 'viewer'] as const;
export type ToolRole = (typeof TOOL_ROLES)[number];

export function toOrgRole(role: ToolRole): OrgRole {
  return role === 'editor' ? 'member' : role;
}

export function toToolRole(role: OrgRole): ToolRole {
  return role === 'member' ? 'editor' : role;
}

export function isToolRole(value: unknown): value is ToolRole {
  return typeof value === 'string' && (TOOL_ROLES as readonly string[]).includes(value);
}

export const CAPABILITIES = [
  'device:view', // list, status, audit logs, access list
  'device:exec', // device_exec, docker_exec
  'device:forward', // forward_start
  'device:read-files', // device_ls, device_cp / device_sync from the device (files may hold secrets: not for viewers)
  'device:write-files', // device_cp / device_sync towards the device
  'device:deploy', // deployments
  'device:manage', // share/unshare, re-key (approve a re-registration)
  'device:own', // owner-only: change the owner (org moves, re-registration elsewhere), remove the device
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** `device:own` is in no role: ownership grants it (see `grantAllows`), so no share ever can. */
const ROLE_CAPABILITIES: Record<OrgRole, readonly Capability[]> = {
  admin: ['device:view', 'device:exec', 'device:forward', 'device:read-files', 'device:write-files', 'device:deploy', 'device:manage'],
  member: ['device:view', 'device:exec', 'device:forward', 'device:read-files', 'device:write-files', 'device:deploy'],
  viewer: ['device:view'],
};

export function roleAllows(role: OrgRole, capability: Capability): boolean {
  return ROLE_CAPABILITIES[role].includes(capability);
}

export const ORG_CAPABILITIES = [
  'org:view', // see the organization and its members
  'org:devices', // org_devices_list
  'org:manage', // rename, add/remove/re-role members
  'org:move-devices', // org_devices_add / org_devices_remove (plus `device:own` for owner changes)
  'org:delete',
] as const;
export type OrgCapability = (typeof ORG_CAPABILITIES)[number];

/** How a caller relates to an organization: a membership role, its owner, or a server admin. */
export const ORG_RELATIONS = ['owner', ...ORG_ROLES, 'server-admin'] as const;
export type OrgRelation = (typeof ORG_RELATIONS)[number];

/** Server administrators run organizations but hold no device rights through them. */
const RELATION_CAPABILITIES: Record<OrgRelation, readonly OrgCapability[]> = {
  owner: ORG_CAPABILITIES,
  admin: ['org:view', 'org:devices', 'org:manage', 'org:move-devices'],
  member: ['org:view', 'org:devices'],
  viewer: ['org:view', 'org:devices'],
  'server-admin': ['org:view', 'org:manage', 'org:delete'],
};

export function relationAllows(relation: OrgRelation, capability: OrgCapability): boolean {
  return RELATION_CAPABILITIES[relation].includes(capability);
}

/**
 * What only server administrators (ADMIN_EMAILS, granted admins, the admin key) may do: it belongs
 * to no organization and no device.
 */
export const SERVER_CAPABILITIES = [
  'server:create-orgs', // org_create
  'server:manage-users', // approve users, grant admin, reset a sign-in binding
  'server:read-metrics', // GET /metrics
] as const;
export type ServerCapability = (typeof SERVER_CAPABILITIES)[number];

export function serverAllows(serverAdmin: boolean, capability: ServerCapability): boolean {
  return serverAdmin && SERVER_CAPABILITIES.includes(capability);
}

/** Any capability an operation may need: on a device, on an organization, or on the server. */
export type AnyCapability = Capability | OrgCapability | ServerCapability;

export function isDeviceCapability(capability: AnyCapability): capability is Capability {
  return (CAPABILITIES as readonly string[]).includes(capability);
}

export function isOrgCapability(capability: AnyCapability): capability is OrgCapability {
  return (ORG_CAPABILITIES as readonly string[]).includes(capability);
}

const RANK: Record<OrgRole, number> = { viewer: 0, member: 1, admin: 2 };

export function strongerRole(a: OrgRole | null, b: OrgRole | null): OrgRole | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

export function weakerRole(a: OrgRole, b: OrgRole): OrgRole {
  return RANK[a] <= RANK[b] ? a : b;
}
