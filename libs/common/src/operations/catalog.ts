import { BATCH_TARGET, bool, defineOperation, num, optStr, str, strList } from './contract';
import { TOOL_ROLES } from '../roles';

const device = str('device name or id');
const role = str('role', { enum: TOOL_ROLES });

export const OPERATIONS = [
  // Device management
  defineOperation({ name: 'devices_list', summary: 'List devices and pending registrations you can access', batch: false, params: {} }),
  defineOperation({ name: 'devices_approve', summary: 'Approve a pending device registration', batch: false, params: { device: str('registration request id or device id') } }),
  defineOperation({ name: 'devices_reject', summary: 'Reject a pending registration or remove an approved device', batch: false, params: { device } }),
  defineOperation({ name: 'device_status', summary: 'Connection status, health, uptime and last contact', batch: true, params: { ...BATCH_TARGET } }),
  defineOperation({
    name: 'device_audit_logs',
    summary: 'Audit log entries of a device',
    batch: true,
    params: {
      ...BATCH_TARGET,
      since: optStr('ISO 8601 lower bound (inclusive)'),
      until: optStr('ISO 8601 upper bound (exclusive)'),
      max: num('maximum number of entries', 100),
    },
  }),
  // Device access control
  defineOperation({ name: 'device_access_list', summary: 'Who else may access a device', batch: false, params: { device } }),
  defineOperation({
    name: 'device_access_add',
    summary: 'Share a device with a user or an organization',
    batch: false,
    params: { device, email_or_org_id: str('an e-mail or an organization id'), role },
  }),
  defineOperation({ name: 'device_access_remove', summary: 'Stop sharing a device', batch: false, params: { device, email_or_org_id: str('an e-mail or an organization id') } }),
  // File operations
  defineOperation({ name: 'device_ls', summary: 'List a remote directory', batch: false, params: { path: str('<device>:<path>') } }),
  defineOperation({ name: 'device_cp', summary: 'Copy a file to or from a device', batch: false, params: { source: str('local path or <device>:<path>'), dest: str('local path or <device>:<path>') } }),
  defineOperation({
    name: 'device_sync',
    summary: 'Synchronise a directory to or from a device',
    batch: false,
    params: {
      source: str('local path or <device>:<path>'),
      dest: str('local path or <device>:<path>'),
      delete: bool('remove files not in source', false),
      dry_run: bool('report without changing', false),
      exclude: strList('patterns to skip', false),
    },
  }),
  // Remote execution
  defineOperation({
    name: 'device_exec',
    summary: 'Run a command on a device',
    batch: true,
    params: { ...BATCH_TARGET, command: strList('command and arguments'), timeout_secs: num('timeout in seconds', 30) },
  }),
  defineOperation({
    name: 'docker_exec',
    summary: 'Run a container CLI command against the device engine',
    batch: false,
    params: { device, args: strList('container CLI arguments'), timeout_secs: num('timeout in seconds', 60) },
  }),
  // Port forwarding
  defineOperation({ name: 'forward_start', summary: 'Forward local ports or sockets to a device', batch: false, params: { device, specs: strList('<local>:<remote> pairs') } }),
  defineOperation({ name: 'forward_stop', summary: 'Stop a forward session', batch: false, params: { session_id: str('forward session id') } }),
  defineOperation({ name: 'forward_list', summary: 'List forward sessions', batch: false, params: {} }),
  // Deployment operations
  defineOperation({
    name: 'device_deploy',
    summary: 'Deploy a compose file or run spec',
    batch: false,
    params: {
      device,
      file: str('path to a compose file or run-spec YAML'),
      spec_type: optStr('spec type', { default: 'auto', enum: ['auto', 'compose', 'runspec', 'deployment'] }),
      name: optStr('display name'),
      deployment_id: optStr('deployment id (active when omitted)'),
    },
  }),
  defineOperation({
    name: 'device_undeploy',
    summary: 'Remove a job from a deployment',
    batch: false,
    params: { device, job_id: str('job id'), deployment_id: optStr('deployment id (active when omitted)') },
  }),
  defineOperation({ name: 'device_deployment_list', summary: 'List deployments', batch: true, params: { ...BATCH_TARGET } }),
  defineOperation({ name: 'device_deployment_new', summary: 'Create a deployment', batch: false, params: { device, active: bool('make it active', false) } }),
  defineOperation({ name: 'device_deployment_show', summary: 'Show a deployment', batch: false, params: { device, deployment_id: optStr('deployment id (active when omitted)') } }),
  defineOperation({ name: 'device_deployment_rm', summary: 'Remove a deployment', batch: false, params: { device, deployment_id: str('deployment id') } }),
  defineOperation({ name: 'device_deployment_active', summary: 'Show the active deployment id', batch: false, params: { device } }),
  defineOperation({ name: 'device_deployment_activate', summary: 'Activate a deployment', batch: false, params: { device, deployment_id: str('deployment id') } }),
  defineOperation({
    name: 'device_deployment_status',
    summary: 'Status of a deployment and its jobs',
    batch: true,
    params: { ...BATCH_TARGET, deployment_id: optStr('deployment id (active when omitted)') },
  }),
  defineOperation({
    name: 'device_deployment_clone',
    summary: 'Clone a deployment',
    batch: false,
    params: { device, deployment_id: str('source deployment id'), active: bool('make it active', false) },
  }),
  // Organization management
  defineOperation({ name: 'org_list', summary: 'List organizations', batch: false, params: {} }),
  defineOperation({ name: 'org_create', summary: 'Create an organization', batch: false, params: { id: str('organization id'), email: str('owner e-mail') } }),
  defineOperation({ name: 'org_delete', summary: 'Delete an organization', batch: false, params: { id: str('organization id') } }),
  defineOperation({ name: 'org_update', summary: 'Rename an organization', batch: false, params: { id: str('current organization id'), new_id: str('new organization id') } }),
  defineOperation({ name: 'org_members_list', summary: 'List members', batch: false, params: { org_id: str('organization id') } }),
  defineOperation({ name: 'org_members_add', summary: 'Add or update a member', batch: false, params: { org_id: str('organization id'), email: str('member e-mail'), role } }),
  defineOperation({ name: 'org_members_remove', summary: 'Remove a member', batch: false, params: { org_id: str('organization id'), email: str('member e-mail') } }),
  defineOperation({ name: 'org_devices_list', summary: 'Devices of an organization', batch: false, params: { org_id: str('organization id') } }),
  defineOperation({ name: 'org_devices_add', summary: 'Move a device into an organization', batch: false, params: { org_id: str('organization id'), device } }),
  defineOperation({ name: 'org_devices_remove', summary: 'Take a device out of an organization', batch: false, params: { org_id: str('organization id'), device } }),
] as const;

export type OperationName = (typeof OPERATIONS)[number]['name'];

export function findOperation(name: string) {
  return OPERATIONS.find((op) => op.name === name);
}
