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
  'device:view', // list, status, audit logs, access list, directory listings
  'device:exec', // device_exec, docker_exec
  'device:forward', // forward_start
  'device:write-files', // device_cp / device_sync towards the device
  'device:deploy', // deployments
  'device:manage', // share/unshare, reject (remove), move between organizations
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const ROLE_CAPABILITIES: Record<OrgRole, readonly Capability[]> = {
  admin: CAPABILITIES,
  member: ['device:view', 'device:exec', 'device:forward', 'device:write-files', 'device:deploy'],
  viewer: ['device:view'],
};

export function roleAllows(role: OrgRole, capability: Capability): boolean {
  return ROLE_CAPABILITIES[role].includes(capability);
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
