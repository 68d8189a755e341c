import { answer, BATCH_TARGET, bool, defineOperation, DEVICE_REF, num, OperationContract, optStr, Param, ParamSpec, ParamType, route, str, strList, subRoute } from './contract';
import { DEPLOY_BODY, device, deviceStream, EXEC_LIMITS, FILE_BYTES, FORWARD_ARGS, NO_NUL, SHELL_ARGS, JOB_ID, JOB_LOGS_DEFAULT_TAIL, JOB_LOGS_MAX_TAIL, ON_DEVICE, ON_DEVICE_FILES, PATH, remotePath, syncId, TRANSFER } from './route-params';
import { FILE_LIMITS } from '../file-limits';
import { TOOL_ROLES } from '../roles';
import { LIMITS } from '../limits';
import { DEPLOYMENT_ID_PATTERN } from '../deployments/schema';

const email = (description: string) => str(description, { minLength: 1, maxLength: 254 });
const orgId = (description: string) => str(description, { minLength: 1, maxLength: 63 });
const DEPLOYMENT_ID = { pattern: DEPLOYMENT_ID_PATTERN, rule: 'a deployment id (1-128 of A-Z a-z 0-9 _ . -)' } as const;
const deploymentId = (description: string) => str(description, DEPLOYMENT_ID);
const activeDeploymentId = optStr('deployment id (active when omitted)', DEPLOYMENT_ID);
const INSTANT = { maxLength: 40 } as const;

/** `device_exec`'s limits, which the server, the runtime, the CLI and the MCP tool all read from here. */
export const EXEC_DEFAULT_TIMEOUT_SECS = 30;
export const EXEC_MAX_TIMEOUT_SECS = 24 * 60 * 60;
const EXEC_COMMAND = strList('command and arguments', true, { minItems: 1, maxItems: 4096, maxLength: 32 * 1024, ...NO_NUL });
const EXEC_TIMEOUT = num('timeout in seconds', EXEC_DEFAULT_TIMEOUT_SECS, { exclusiveMinimum: 0, maximum: EXEC_MAX_TIMEOUT_SECS });
const role = str('role', { enum: TOOL_ROLES });
/** The by-path reads look any reference up (their service decides): one too long names no device, a 404 like any other. */
const ANY_DEVICE = str('device name or id');
const AUDIT_RANGE = {
  since: optStr('ISO 8601 lower bound (inclusive)', INSTANT),
  until: optStr('ISO 8601 upper bound (exclusive)', INSTANT),
  max: num('maximum number of entries', LIMITS.auditLogsDefaultMax, { integer: true, minimum: 1, maximum: LIMITS.auditLogsMaxMax, rule: `a whole number between 1 and ${LIMITS.auditLogsMaxMax}` }),
};

/** GET /devices beyond the spec's tool: with `limit` or `cursor` the answer is a DeviceListPage. */
const DEVICE_LIST_EXTRA = {
  limit: num('page size (1-1000)', undefined, { integer: true, minimum: 1, maximum: 1000, rule: 'a whole number between 1 and 1000' }),
  cursor: optStr('next_cursor of the previous page', { maxLength: 600 }),
  status: optStr('only devices in this state', { enum: ['online', 'offline', 'pending'] }),
  owner: optStr('owner: user:<email>, org:<id>, an e-mail address or an organization id', { maxLength: 300 }),
  name: optStr('name prefix (case-sensitive)', { minLength: 1, maxLength: 256 }),
};

export const OPERATIONS = [
  // Device management
  defineOperation({ name: 'devices_list', http: route('GET', '/devices', DEVICE_LIST_EXTRA), summary: 'List devices and pending registrations you can access', batch: false, readOnly: true, capability: null, params: {} }),
  defineOperation({ name: 'devices_approve', http: { ...route('POST', '/devices/approve', { request_id: optStr('the same as device: a registration request id', { minLength: 1, maxLength: 128 }) }), either: ['device', 'request_id'] }, summary: 'Approve a pending device registration', batch: false, readOnly: false, capability: 'device:own', params: { device: str('registration request id or device id', { minLength: 1, maxLength: 128 }) } }),
  defineOperation({ name: 'devices_reject', http: route('POST', '/devices/reject'), summary: 'Reject a pending registration or remove an approved device', batch: false, readOnly: false, capability: 'device:own', params: { device: str('device name or id', { minLength: 1, maxLength: 128 }) } }),
  defineOperation({
    name: 'device_rename',
    http: route('PATCH', '/devices/{device}'),
    summary: 'Rename a device',
    batch: false,
    readOnly: false,
    capability: 'device:manage',
    params: { device, name: str('new display name: 1-64 characters, no control characters, no white space at either end', { maxLength: 64 }) },
  }),
  defineOperation({ name: 'device_show', http: route('GET', '/devices/{device}'), summary: 'One device, as devices_list lists it', batch: false, readOnly: true, capability: 'device:view', tool: false, params: { device } }),
  defineOperation({ name: 'device_capabilities', http: route('GET', '/devices/{device}/capabilities'), summary: 'What the caller may do with a device, as AccessPolicy decides it', batch: false, readOnly: true, capability: 'device:view', tool: false, params: { device } }),
  defineOperation({ name: 'device_status', http: route('POST', '/devices/status'), summary: 'Connection status, health, uptime and last contact', batch: true, readOnly: true, capability: 'device:view', params: { ...BATCH_TARGET }, routes: { one: subRoute('GET', '/devices/{device}/status', 'device:view', { device: ANY_DEVICE }, { answer: answer('device_status_one') }) } }),
  defineOperation({
    name: 'device_audit_logs',
    http: route('POST', '/devices/audit-logs'),
    summary: 'Audit log entries of a device',
    batch: true,
    readOnly: true,
    capability: 'device:view',
    params: { ...BATCH_TARGET, ...AUDIT_RANGE },
    routes: { one: subRoute('GET', '/devices/{device}/audit-logs', 'device:view', { device: ANY_DEVICE, ...AUDIT_RANGE }, { answer: answer('device_audit_logs_one') }) },
  }),
  // Device access control
  defineOperation({ name: 'device_access_list', http: route('GET', '/devices/{device}/access'), summary: 'Who else may access a device', batch: false, readOnly: true, capability: 'device:view', params: { device } }),
  defineOperation({
    name: 'device_access_add',
    http: route('POST', '/devices/{device}/access'),
    summary: 'Share a device with a user or an organization',
    batch: false,
    readOnly: false,
    capability: 'device:manage',
    params: { device, email_or_org_id: str('an e-mail or an organization id', DEVICE_REF), role },
  }),
  defineOperation({ name: 'device_access_remove', http: route('DELETE', '/devices/{device}/access/{email_or_org_id}'), summary: 'Stop sharing a device', batch: false, readOnly: false, capability: 'device:manage', params: { device, email_or_org_id: str('an e-mail or an organization id', DEVICE_REF) } }),
  // File operations
  defineOperation({
    name: 'device_ls',
    summary: 'List a remote directory',
    batch: false,
    readOnly: true,
    capability: 'device:read-files',
    params: { path: str('<device>:<path>') },
    routes: { list: subRoute('GET', '/devices/{device}/files', 'device:read-files', { device, path: PATH }, { answer: answer('files_list'), errors: ON_DEVICE_FILES }) },
  }),
  defineOperation({
    name: 'device_cp',
    summary: 'Copy a file to or from a device',
    batch: false,
    readOnly: false,
    capability: { fromDevice: 'device:read-files', toDevice: 'device:write-files' },
    params: { source: str('local path or <device>:<path>'), dest: str('local path or <device>:<path>') },
    routes: {
      /** The file's bytes, its metadata in headers and its checksum as a trailer (docs/protocol.md, "Files"). */
      download: subRoute('GET', '/devices/{device}/files/content', 'device:read-files', TRANSFER, { answer: answer('files_content', 'application/octet-stream'), errors: ON_DEVICE_FILES }),
      /** The file's bytes as the body, its metadata and checksum in headers or a trailer. */
      upload: subRoute('PUT', '/devices/{device}/files/content', 'device:write-files', { ...TRANSFER, name: optStr('when the path is an existing directory, write into it under this name', { maxLength: 255 }) }, { rawBody: FILE_BYTES, answer: answer('files_written'), errors: [...ON_DEVICE_FILES, 'INSUFFICIENT_STORAGE'] }),
    },
  }),
  defineOperation({
    name: 'device_sync',
    summary: 'Synchronise a directory to or from a device',
    batch: false,
    readOnly: false,
    capability: { fromDevice: 'device:read-files', toDevice: 'device:write-files' },
    params: {
      source: str('local path or <device>:<path>'),
      dest: str('local path or <device>:<path>'),
      delete: bool('remove files not in source', false),
      dry_run: bool('report without changing', false),
      exclude: strList('patterns to skip', false),
    },
    routes: {
      /** The tree as NDJSON, filtered on the device; file bytes travel over device_cp's routes. */
      manifest: subRoute('POST', '/devices/{device}/files/manifest', 'device:read-files', {
        device,
        path: PATH,
        exclude: strList('gitignore-like patterns to skip (docs/protocol.md, "Files")', false, { maxItems: FILE_LIMITS.maxExcludePatterns, maxLength: FILE_LIMITS.maxPatternLength }),
        hash: bool('hash every file (sha256); otherwise size and mtime decide', false),
      }, { answer: answer('files_manifest', 'application/x-ndjson'), errors: ON_DEVICE_FILES }),
      delete: subRoute('POST', '/devices/{device}/files/delete', 'device:write-files', {
        device,
        root: remotePath('the sync root on the device; nothing outside it is deleted'),
        paths: strList(`paths relative to the root ('/'-separated, no '..'), at most ${FILE_LIMITS.maxDeletePaths}`, true, { minItems: 1, maxItems: FILE_LIMITS.maxDeletePaths, maxLength: FILE_LIMITS.maxPathBytes }),
        sync: syncId,
      }, { answer: answer('files_deleted'), errors: ON_DEVICE_FILES }),
      /** Writes the sync's audit entry now; answers what the server counted. */
      sync_end: subRoute('POST', '/devices/{device}/files/sync-end', 'device:read-files', { device, sync: syncId }, { answer: answer('files_sync_end') }),
    },
  }),
  // Remote execution
  defineOperation({
    name: 'device_exec',
    http: route('POST', '/api/exec', { stdin: optStr("text written to the command's stdin, then closed") }),
    summary: 'Run a command on a device',
    batch: true,
    readOnly: false,
    capability: 'device:exec',
    params: { ...BATCH_TARGET, command: EXEC_COMMAND, timeout_secs: EXEC_TIMEOUT },
    limits: EXEC_LIMITS,
    /** `svc exec` streams stdin and output as they come; `svc shell` runs under the same capability. */
    routes: {
      stream: deviceStream('exec', 'device:exec', { command: EXEC_COMMAND, timeout_secs: EXEC_TIMEOUT, stdin: bool('stdin travels as STDIN frames (else it is closed at once)', false) }),
      shell: deviceStream('shell', 'device:exec', SHELL_ARGS),
    },
  }),
  defineOperation({
    name: 'docker_exec',
    summary: 'Run a container CLI command against the device engine',
    batch: false,
    readOnly: false,
    capability: 'device:exec',
    params: { device, args: strList('container CLI arguments'), timeout_secs: num('timeout in seconds', 60, { exclusiveMinimum: 0, maximum: EXEC_MAX_TIMEOUT_SECS }) },
    /** Per captured stream (the MCP tool's): `docker save` or `docker logs` can print without end. */
    limits: { outputCapBytes: 16 * 1024 * 1024 },
    /** One stream per connection the local container CLI makes to the device's engine. */
    routes: { stream: deviceStream('docker', 'device:exec', {}) },
  }),
  // Port forwarding
  defineOperation({
    name: 'forward_start',
    summary: 'Forward local ports or sockets to a device',
    batch: false,
    readOnly: false,
    capability: 'device:forward',
    params: { device, specs: strList('<local>:<remote> pairs') },
    /** One stream per connection the local listener accepts. */
    routes: { stream: deviceStream('forward', 'device:forward', FORWARD_ARGS) },
  }),
  defineOperation({ name: 'forward_stop', summary: 'Stop a forward session', batch: false, readOnly: false, capability: null, params: { session_id: str('forward session id') } }),
  defineOperation({ name: 'forward_list', summary: 'List forward sessions', batch: false, readOnly: true, capability: null, params: {} }),
  // Deployment operations
  defineOperation({
    name: 'device_deploy',
    summary: 'Deploy a compose file or run spec',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: {
      device,
      file: str('path to a compose file or run-spec YAML'),
      spec_type: optStr('spec type', { default: 'auto', enum: ['auto', 'compose', 'runspec', 'deployment'] }),
      name: optStr('display name'),
      deployment_id: optStr('deployment id (active when omitted)'),
    },
    routes: {
      /** The body is a DeployRequest built from `file` on the caller's side (docs/runspec.md, DEPLOY_REQUEST_SCHEMA), read after authorization with its own size limit. */
      jobs: subRoute('POST', '/devices/{device}/deployments/jobs', 'device:deploy', { device }, { rawBody: DEPLOY_BODY, answer: answer('deployment_jobs_deploy') }),
      /** A job's log from the device as text (it may hold what the job prints of its secrets, so it needs what deploying needs). */
      job_logs: subRoute('GET', '/devices/{device}/deployments/jobs/{job_id}/logs', 'device:deploy', {
        device,
        job_id: str('job id', JOB_ID),
        follow: bool('keep the answer open and stream new lines', false),
        tail: num('start with the last N lines', JOB_LOGS_DEFAULT_TAIL, { integer: true, minimum: 0, maximum: JOB_LOGS_MAX_TAIL, rule: `a number of lines (0-${JOB_LOGS_MAX_TAIL})` }),
      }, { answer: answer('deployment_job_logs', 'text/plain'), errors: ON_DEVICE }),
    },
  }),
  defineOperation({
    name: 'device_undeploy',
    http: route('DELETE', '/devices/{device}/deployments/jobs/{job_id}'),
    summary: 'Remove a job from a deployment',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: { device, job_id: str('job id', JOB_ID), deployment_id: activeDeploymentId },
  }),
  defineOperation({ name: 'device_deployment_list', http: route('POST', '/devices/deployments/list'), summary: 'List deployments', batch: true, readOnly: true, capability: 'device:view', params: { ...BATCH_TARGET } }),
  defineOperation({ name: 'device_deployment_new', http: route('POST', '/devices/{device}/deployments'), summary: 'Create a deployment', batch: false, readOnly: false, capability: 'device:deploy', params: { device, active: bool('make it active', false) } }),
  defineOperation({ name: 'device_deployment_show', http: route('GET', '/devices/{device}/deployment'), summary: 'Show a deployment', batch: false, readOnly: true, capability: 'device:view', params: { device, deployment_id: activeDeploymentId } }),
  defineOperation({ name: 'device_deployment_rm', http: route('DELETE', '/devices/{device}/deployments/{deployment_id}'), summary: 'Remove a deployment', batch: false, readOnly: false, capability: 'device:deploy', params: { device, deployment_id: deploymentId('deployment id') } }),
  defineOperation({ name: 'device_deployment_active', http: route('GET', '/devices/{device}/deployments/active'), summary: 'Show the active deployment id', batch: false, readOnly: true, capability: 'device:view', params: { device } }),
  defineOperation({ name: 'device_deployment_activate', http: route('POST', '/devices/{device}/deployments/{deployment_id}/activate'), summary: 'Activate a deployment', batch: false, readOnly: false, capability: 'device:deploy', params: { device, deployment_id: deploymentId('deployment id') } }),
  defineOperation({
    name: 'device_deployment_status',
    http: route('POST', '/devices/deployments/status'),
    summary: 'Status of a deployment and its jobs',
    batch: true,
    readOnly: true,
    capability: 'device:view',
    params: { ...BATCH_TARGET, deployment_id: activeDeploymentId },
  }),
  defineOperation({
    name: 'device_deployment_clone',
    http: route('POST', '/devices/{device}/deployments/{deployment_id}/clone'),
    summary: 'Clone a deployment',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: { device, deployment_id: deploymentId('source deployment id'), active: bool('make it active', false) },
  }),
  // Organization management
  defineOperation({ name: 'org_list', http: route('GET', '/orgs'), summary: 'List organizations', batch: false, readOnly: true, capability: null, params: {} }),
  defineOperation({ name: 'org_show', http: route('GET', '/orgs/{id}'), summary: 'One organization, as org_list lists it', batch: false, readOnly: true, capability: 'org:view', command: 'orgs show', params: { id: str('organization id') } }),
  defineOperation({ name: 'org_create', http: route('POST', '/orgs'), summary: 'Create an organization', batch: false, readOnly: false, capability: 'server:create-orgs', params: { id: orgId('organization id'), email: email('owner e-mail') } }),
  defineOperation({ name: 'org_delete', http: route('DELETE', '/orgs/{id}'), summary: 'Delete an organization', batch: false, readOnly: false, capability: 'org:delete', params: { id: str('organization id') } }),
  defineOperation({ name: 'org_update', http: route('PATCH', '/orgs/{id}'), summary: 'Rename an organization', batch: false, readOnly: false, capability: 'org:manage', params: { id: str('current organization id'), new_id: orgId('new organization id') } }),
  defineOperation({ name: 'org_members_list', http: route('GET', '/orgs/{org_id}/members'), summary: 'List the members of an organization', batch: false, readOnly: true, capability: 'org:view', params: { org_id: str('organization id') } }),
  defineOperation({ name: 'org_members_add', http: route('POST', '/orgs/{org_id}/members'), summary: 'Add or update a member', batch: false, readOnly: false, capability: 'org:manage', params: { org_id: str('organization id'), email: email('member e-mail'), role } }),
  defineOperation({ name: 'org_members_remove', http: route('DELETE', '/orgs/{org_id}/members/{email}'), summary: 'Remove a member', batch: false, readOnly: false, capability: 'org:manage', params: { org_id: str('organization id'), email: str('member e-mail') } }),
  defineOperation({ name: 'org_devices_list', http: route('GET', '/orgs/{org_id}/devices'), summary: 'Devices of an organization', batch: false, readOnly: true, capability: 'org:devices', params: { org_id: str('organization id') } }),
  defineOperation({ name: 'org_devices_add', http: route('POST', '/orgs/{org_id}/devices'), summary: 'Move a device into an organization', batch: false, readOnly: false, capability: ['org:move-devices', 'device:own'], params: { org_id: str('organization id'), device } }),
  defineOperation({ name: 'org_devices_remove', http: route('DELETE', '/orgs/{org_id}/devices/{device}'), summary: 'Take a device out of an organization', batch: false, readOnly: false, capability: ['org:move-devices', 'device:view'], params: { org_id: str('organization id'), device } }),
  defineOperation({ name: 'org_capabilities', http: route('GET', '/orgs/{org_id}/capabilities'), summary: 'What the caller may do on an organization, as AccessPolicy decides it', batch: false, readOnly: true, capability: 'org:view', tool: false, params: { org_id: str('organization id') } }),
  // The caller
  defineOperation({ name: 'server_capabilities', http: route('GET', '/me/capabilities'), summary: 'What the caller may do on the server, as AccessPolicy decides it', batch: false, readOnly: true, capability: null, tool: false, params: {} }),
] as const;

export type OperationName = (typeof OPERATIONS)[number]['name'];

/** The operations that are tools (of tools.md, or EXTENSION_OPERATIONS): what `svc mcp` lists and `svc` has a command for. */
export type ToolName = Exclude<OperationName, Extract<(typeof OPERATIONS)[number], { tool: false }>['name']>;

export function isTool(op: object): boolean {
  return (op as Pick<OperationContract, 'tool'>).tool !== false;
}

/** Operations beyond the tools of the specification (tools.md): the parity test allows exactly these. */
export const EXTENSION_OPERATIONS: readonly OperationName[] = ['device_rename', 'org_show'];

/**
 * Operations that no single server route serves: file transfer, container and forwarding sessions
 * are compositions the client runs over its `routes` (file routes, client streams), device_deploy
 * reads its `file` on the caller's side and sends the result to its `jobs` route, and forward_stop
 * and forward_list touch only the caller's own machine. A test keeps this list and the catalog in step.
 */
export const UNROUTED_OPERATIONS: readonly OperationName[] = [
  'device_ls',
  'device_cp',
  'device_sync',
  'docker_exec',
  'forward_start',
  'forward_stop',
  'forward_list',
  'device_deploy',
];

export function findOperation(name: string) {
  return OPERATIONS.find((op) => op.name === name);
}

export type OperationContractOf<N extends OperationName> = Extract<(typeof OPERATIONS)[number], { name: N }>;

type ValueOf<P> = P extends { type: 'string[]' } ? string[] : P extends { type: 'env' } ? Record<string, string> : P extends { type: 'number' } ? number : P extends { type: 'boolean' } ? boolean : P extends { enum: readonly (infer E)[] } ? E : string;
type RequiredKeys<Ps> = { [K in keyof Ps]: Ps[K] extends Param<ParamType, true> ? K : never }[keyof Ps];
export type ParamsInput<Ps> = [keyof Ps] extends [never]
  ? Record<string, never>
  : { [K in RequiredKeys<Ps>]: ValueOf<Ps[K]> } & { [K in Exclude<keyof Ps, RequiredKeys<Ps>>]?: ValueOf<Ps[K]> };
/** A route's extras; a route without any is typed with HttpRoute's index signature, which means none. */
type ExtraOf<N extends OperationName> = OperationContractOf<N> extends { http: { extra?: infer E } } ? (E extends Record<string, ParamSpec> ? (string extends keyof E ? {} : E) : {}) : {};

/**
 * What a caller passes to an operation, typed from the catalog: required parameters required,
 * enums as their values. `OperationInput<N>` is the tool's (and `svc mcp`'s) input;
 * `RouteInput<N>` adds the route's optional extras that the SDK may send.
 */
export type OperationInput<N extends OperationName> = ParamsInput<OperationContractOf<N>['params']>;
export type RouteInput<N extends OperationName> = ParamsInput<OperationContractOf<N>['params'] & ExtraOf<N>>;

/** The capability an operation needs, as its catalog entry says (typed: `capabilityOf('device_exec')` is `'device:exec'`). */
export function capabilityOf<N extends OperationName>(name: N): OperationContractOf<N>['capability'] {
  return findOperation(name)!.capability as OperationContractOf<N>['capability'];
}
