/**
 * The operations' results, written once as JSON Schema: results.ts infers the TypeScript types
 * from these (json-schema-to-ts), the server's OpenAPI responses are these, and an e2e suite
 * checks real answers against them (test/catalog-calls.e2e-spec.ts). Objects are closed
 * (`additionalProperties: false`): a field an answer carries is a field written here.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { DEPLOYMENT_STATES, HEALTH_STATES, JOB_STATES, JOB_TYPES } from '../deployments/model';
import { CAPABILITIES, ORG_CAPABILITIES, SERVER_CAPABILITIES, TOOL_ROLES } from '../roles';

export type JsonSchema = Record<string, unknown>;

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const boolean = { type: 'boolean' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const oneOf = <const V extends readonly string[]>(...values: V) => ({ type: 'string', enum: values }) as const;
/** OpenAPI 3.0's way of saying "or null", which the server's OpenAPI document uses. */
const nullable = <const S extends object>(schema: S) => ({ ...schema, nullable: true }) as const;
const array = <const S extends JSONSchema>(items: S) => ({ type: 'array', items }) as const;

/** A closed object: every property required except the `optional` ones. */
function object<const P extends Record<string, JSONSchema>, const O extends readonly (keyof P & string)[] = []>(properties: P, optional?: O) {
  const open = (optional ?? []) as readonly string[];
  const required = Object.keys(properties).filter((key) => !open.includes(key)) as Exclude<keyof P & string, O[number]>[];
  return { type: 'object', properties, required, additionalProperties: false } as const;
}

const status = <const S extends string>(value: S) => object({ status: oneOf(value) });
const role = oneOf(...TOOL_ROLES);
const connection = oneOf('online', 'offline');

/**
 * A [Batch] answer: the single result, or `{results}` with, per device, the result and its `device`
 * (merged into the one closed object: closed objects do not compose with allOf) or an error.
 */
function batched<const S extends { properties: object; required: readonly string[] }>(single: S) {
  const failed = object({ device: string, error: string, code: string });
  const item = { ...single, properties: { device: string, ...single.properties }, required: ['device', ...single.required] } as const;
  return { oneOf: [single, object({ results: array({ oneOf: [item, failed] }) })] } as const;
}

export const deviceListItemSchema = object(
  {
    id: string,
    name: string,
    status: oneOf('online', 'offline', 'pending'),
    owner: string,
    /** Present on pending registration requests only. */
    request_id: string,
    device_id: string,
    hostname: string,
    platform: string,
    requester: string,
    /** The requesting runtime's key fingerprint (XXXX-XXXX-XXXX-XXXX), to compare with the device's display. */
    fingerprint: string,
    source_address: string,
    /** The device id is registered with another key (or none recorded): only its owner may approve. */
    key_mismatch: boolean,
    /** With key_mismatch: the fingerprint the device id is registered with (null if none recorded). */
    registered_fingerprint: nullable(string),
    /** The request is for a registered device: approving it replaces that device's key and cuts it off. */
    replaces: object({ device_id: string, name: string, status: connection }),
  },
  ['request_id', 'device_id', 'hostname', 'platform', 'requester', 'fingerprint', 'source_address', 'key_mismatch', 'registered_fingerprint', 'replaces'],
);
export const deviceRenameSchema = object({ status: oneOf('renamed'), device_id: string, name: string });
/** `carrier` and `carrier_note` only while online: the tunnel's carrier, and why it is not QUIC. */
export const deviceStatusSchema = object(
  { status: connection, health: string, uptime: nullable(integer), last_seen: nullable(dateTime), carrier: oneOf('tcp', 'quic'), carrier_note: string },
  ['carrier', 'carrier_note'],
);
export const auditEntrySchema = object({ timestamp: dateTime, user: string, action: string, details: string });
/** `truncated`: in a batch answer, this device's entries were cut to keep the answer bounded. */
export const auditLogsSchema = object({ logs: array(auditEntrySchema), truncated: { type: 'boolean', const: true } }, ['truncated']);
export const accessEntrySchema = { oneOf: [object({ email: string, role }), object({ org_id: string, role })] } as const;
/** output: stdout and stderr interleaved as produced; timed_out (beyond the spec): the timeout killed it; error: a batch item's timeout, in words. */
export const execResultSchema = object({ output: string, exit_code: integer, timed_out: boolean, error: string }, ['error']);
export const directoryEntrySchema = object({ name: string, is_dir: boolean });
/** device_ls's entry plus what a listing usually shows (FileEntry of files/file-contract.ts). */
export const fileEntrySchema = object({ name: string, is_dir: boolean, size: integer, mode: integer, mtime: integer, is_symlink: boolean });
/** One entry of a recursive listing: `path` relative to the root, `sha256` when hashing was asked for. */
export const manifestEntrySchema = object({ path: string, is_dir: boolean, size: integer, mode: integer, mtime: integer, sha256: string }, ['sha256']);
export const forwardSessionSchema = object({ session_id: string, device: string, specs: array(string), targets: array(string) });
const rollbackPolicy = object({ on_health_failure: { oneOf: [oneOf('never', 'any', 'all'), object({ consecutive: integer })] }, stabilization_period_secs: integer });
/** A job as listed; its other fields (workdir, files, env, steps, …) are the run-spec's: docs/runspec.md, JOB_SCHEMA. */
const jobSummary = object({ id: string, type: oneOf(...JOB_TYPES), enabled: boolean });
/** A whole deployment document: the jobs are the run-spec's (docs/runspec.md), described there, so open here. */
export const deploymentSchema = object(
  {
    id: string,
    active: boolean,
    jobs: array({ type: 'object', properties: jobSummary.properties, required: jobSummary.required }),
    name: string,
    rollback: rollbackPolicy,
    created_at: dateTime,
    updated_at: dateTime,
    redacted: { type: 'boolean', const: true },
  },
  ['name', 'rollback', 'redacted'],
);
export const deploymentSummarySchema = object(
  { id: string, active: boolean, jobs: array(jobSummary), name: string, rollback: rollbackPolicy, created_at: dateTime, updated_at: dateTime },
  ['name', 'rollback'],
);
/** The runtime's report of a job (JobStatus of the deployment model). */
const jobStatus = object(
  {
    id: string,
    status: oneOf(...JOB_STATES),
    health: oneOf(...HEALTH_STATES),
    restarts: integer,
    exit_code: nullable(integer),
    reason: string,
    steps: array(object({ name: string, status: oneOf('ok', 'failed', 'running', 'skipped', 'timed_out'), exit_code: nullable(integer), attempts: integer }, ['exit_code', 'attempts'])),
    log_tail: array(string),
  },
  ['restarts', 'exit_code', 'reason', 'steps', 'log_tail'],
);
/**
 * The newest report the device sent for the deployment, plus what the server knows: reported_at
 * null before its first report (status pending); online; stale (offline, or no report on its active
 * deployment for STALE_REPORT_MS); rolled_back_from on the deployment an automatic rollback went to.
 */
export const deploymentStatusSchema = object(
  {
    deployment_id: string,
    status: oneOf(...DEPLOYMENT_STATES),
    jobs: array(jobStatus),
    rollback: object({ reason: string, to_deployment_id: nullable(string) }),
    reported_at: nullable(dateTime),
    online: boolean,
    stale: boolean,
    rolled_back_from: object({ deployment_id: string, reason: string, at: dateTime }),
  },
  ['rollback', 'rolled_back_from'],
);
export const organizationSchema = object({ id: string, owner: string, members: integer });
export const orgMemberSchema = object({ email: string, role });
export const orgDeviceSchema = object({ id: string, name: string, status: connection });

export const RESULT_SCHEMAS = {
  devices_list: array(deviceListItemSchema),
  devices_approve: object({ status: oneOf('approved'), device_id: string, fingerprint: string }),
  devices_reject: status('rejected'),
  device_rename: deviceRenameSchema,
  device_show: deviceListItemSchema,
  /** What the caller may do with one device (AccessPolicy's answer), so a client shows only the controls that will work. */
  device_capabilities: object({ device_id: string, role, owner: boolean, capabilities: array(oneOf(...CAPABILITIES)) }),
  device_status: batched(deviceStatusSchema),
  device_audit_logs: batched(auditLogsSchema),
  device_access_list: array(accessEntrySchema),
  device_access_add: status('added'),
  device_access_remove: status('removed'),
  device_ls: array(directoryEntrySchema),
  device_cp: status('copied'),
  device_sync: object({ status: oneOf('synced'), dry_run: boolean, copy: array(string), delete: array(string), unchanged: integer }),
  device_exec: batched(execResultSchema),
  docker_exec: object({ stdout: string, stderr: string, exit_code: integer }),
  forward_start: object({ session_id: string, device: string, targets: array(string), status: oneOf('started') }),
  forward_stop: object({ session_id: string, status: oneOf('stopped') }),
  forward_list: array(forwardSessionSchema),
  device_deploy: object({ status: oneOf('deployed'), deployment_id: string }),
  device_undeploy: status('undeployed'),
  device_deployment_list: batched(object({ deployments: array(deploymentSummarySchema) })),
  device_deployment_new: deploymentSchema,
  device_deployment_show: deploymentSchema,
  device_deployment_rm: status('removed'),
  device_deployment_active: object({ active_deployment_id: string }),
  device_deployment_activate: status('activated'),
  device_deployment_status: batched(deploymentStatusSchema),
  device_deployment_clone: deploymentSchema,
  org_list: array(organizationSchema),
  org_show: organizationSchema,
  org_create: status('created'),
  org_delete: status('deleted'),
  org_update: status('updated'),
  org_members_list: array(orgMemberSchema),
  org_members_add: status('added'),
  org_members_remove: status('removed'),
  org_devices_list: array(orgDeviceSchema),
  org_devices_add: status('added'),
  org_devices_remove: status('removed'),
  org_capabilities: object({ org_id: string, capabilities: array(oneOf(...ORG_CAPABILITIES)) }),
  server_capabilities: object({ capabilities: array(oneOf(...SERVER_CAPABILITIES)) }),
} as const;

/**
 * Answers of the REST routes that are not tools of the specification: the runtime's registration,
 * the bulk reject, one device's status and audit log by path, a page of the device listing, the
 * deploy route that device_deploy composes (it reads its file on the caller's side).
 */
export const ROUTE_RESULT_SCHEMAS = {
  registration_request: object({ request_id: string, fingerprint: string }),
  registration_status: {
    oneOf: [object({ status: oneOf('pending', 'rejected') }), object({ status: oneOf('approved'), api_key: string, device_id: string })],
  },
  registrations_reject: object({ status: oneOf('rejected'), count: integer }),
  device_status_one: deviceStatusSchema,
  device_audit_logs_one: auditLogsSchema,
  /** `next_cursor` is null on the last page. */
  devices_list_page: object({ items: array(deviceListItemSchema), next_cursor: nullable(string) }),
  deployment_jobs_deploy: object({ status: oneOf('deployed'), deployment_id: string }),
  /** A job's log as the device keeps it (text/plain), streamed while `follow` holds it open. */
  deployment_job_logs: { type: 'string', description: 'log lines, newline-terminated' },
  /** The file routes' answers (device_ls, device_cp and device_sync's `routes`; docs/protocol.md, "Files"). */
  files_list: array(fileEntrySchema),
  /** The bytes; size, mode and mtime in x-svc-* headers, the SHA-256 in the x-svc-sha256 trailer. */
  files_content: { type: 'string', format: 'binary' },
  files_written: object({ path: string, size: integer, sha256: string }),
  /** One line per entry; a final `{error, code}` line when the listing broke off after the 200. */
  files_manifest: { oneOf: [manifestEntrySchema, object({ error: string, code: string })] },
  files_deleted: object({ deleted: integer }),
  files_sync_end: object({ written: integer, writtenBytes: integer, read: integer, readBytes: integer, deleted: integer }),
} as const;

/** Every error answer of the REST API and of the client streams (ErrorBody in errors.ts). */
export const errorBodySchema = object({ statusCode: integer, error: string, message: string, code: string, requestId: string });
