import type { OperationName } from '@svc/common';

/**
 * The `svc` command a person runs for each tool of the specification (oclif command ids, topics
 * separated by spaces). A parity test checks every tool has one and that each command exists.
 */
export const TOOL_COMMANDS: Record<OperationName, string> = {
  devices_list: 'devices list',
  devices_approve: 'devices approve',
  devices_reject: 'devices reject',
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
