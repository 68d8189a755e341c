import { OPERATIONS, ToolName } from '@svc/common/operations';

/**
 * The `svc` command a person runs for each tool of the specification and each extension
 * (EXTENSION_OPERATIONS; oclif command ids, topics separated by spaces): written by hand, or
 * derived from the catalog entry's `command`. A parity test checks every tool has one and that each command exists.
 */
/** Tools whose command is derived from their catalog entry (`command`, catalog-command.ts). */
type DerivedCommandTool = Extract<(typeof OPERATIONS)[number], { command: string }>['name'];

const WRITTEN_COMMANDS: Record<Exclude<ToolName, DerivedCommandTool>, string> = {
  devices_list: 'devices list',
  devices_approve: 'devices approve',
  devices_reject: 'devices reject',
  device_rename: 'devices rename',
  device_status: 'devices status',
  device_audit_logs: 'devices logs',
  device_access_list: 'access list',
  device_access_add: 'access add',
  device_access_remove: 'access remove',
  device_ls: 'ls',
  device_cp: 'cp',
  device_sync: 'sync',
  device_exec: 'exec',
  docker_exec: 'docker',
  forward_start: 'forward start',
  forward_stop: 'forward stop',
  forward_list: 'forward list',
  device_deploy: 'deploy',
  device_undeploy: 'undeploy',
  device_deployment_list: 'deployments list',
  device_deployment_new: 'deployments new',
  device_deployment_show: 'deployments show',
  device_deployment_rm: 'deployments rm',
  device_deployment_active: 'deployments active',
  device_deployment_activate: 'deployments activate',
  device_deployment_status: 'deployments status',
  device_deployment_clone: 'deployments clone',
  org_list: 'orgs list',
  org_create: 'orgs create',
  org_delete: 'orgs delete',
  org_update: 'orgs rename',
  org_members_list: 'orgs members list',
  org_members_add: 'orgs members add',
  org_members_remove: 'orgs members remove',
  org_devices_list: 'orgs devices list',
  org_devices_add: 'orgs devices add',
  org_devices_remove: 'orgs devices remove',
};

export const TOOL_COMMANDS: Record<ToolName, string> = {
  ...WRITTEN_COMMANDS,
  ...Object.fromEntries(OPERATIONS.flatMap((op) => ('command' in op && typeof op.command === 'string' ? [[op.name, op.command]] : []))),
} as Record<ToolName, string>;
