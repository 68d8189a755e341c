/**
 * The result shapes several operations (or the types the server, the SDK and the CLI import)
 * share, as JSON Schema. Each operation's own result is its catalog entry's `result`; results.ts
 * infers the TypeScript types from both, the server's OpenAPI responses are these, and an e2e
 * suite checks real answers against them (test/catalog-calls.e2e-spec.ts).
 */
import { DEPLOYMENT_STATES, HEALTH_STATES, JOB_STATES, JOB_TYPES } from '../deployments/model';
import { TOOL_ROLES } from '../roles';
import { array, boolean, dateTime, integer, nullable, object, oneOf, string } from './schema-builders';

export type { JsonSchema } from './schema-builders';

const role = oneOf(...TOOL_ROLES);
const connection = oneOf('online', 'offline');

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
/** What a sync leaves alone, each listed (when asked for) with `skipped: <type>` instead of being copied. */
export const SKIPPED_FILE_TYPES = ['symbolic link', 'fifo', 'socket', 'character device', 'block device'] as const;
/**
 * One entry of a recursive listing: `path` relative to the root, `sha256` when hashing was asked
 * for, `skipped` on a symbolic link or special file (sync neither copies nor deletes it).
 */
export const manifestEntrySchema = object(
  { path: string, is_dir: boolean, size: integer, mode: integer, mtime: integer, sha256: string, skipped: oneOf(...SKIPPED_FILE_TYPES) },
  ['sha256', 'skipped'],
);
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
/** An account as the users API answers it; `admin` from ADMIN_EMAILS or granted through the API. */
export const userSchema = object({ email: string, active: boolean, admin: boolean, created_at: dateTime, approved_at: nullable(dateTime) });
/** devices_list with `limit` or `cursor`: one page; `next_cursor` is null on the last page. */
export const deviceListPageSchema = object({ items: array(deviceListItemSchema), next_cursor: nullable(string) });

/** Every error answer of the REST API and of the client streams (ErrorBody in errors.ts). */
export const errorBodySchema = object({ statusCode: integer, error: string, message: string, code: string, requestId: string });
