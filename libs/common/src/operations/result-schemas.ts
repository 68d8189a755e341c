/**
 * JSON Schemas of the operation results (OperationResults in results.ts, as data): the server's
 * OpenAPI response documents and `svc mcp`'s output schemas are built from these.
 */
import type { OperationResults, RouteResults } from './results';
import { DEPLOYMENT_STATES, HEALTH_STATES, JOB_STATES, JOB_TYPES } from '../deployments/model';

export type JsonSchema = Record<string, unknown>;

const string = { type: 'string' };
const integer = { type: 'integer' };
const boolean = { type: 'boolean' };
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, nullable: true });
const object = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
});
const array = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const status = (value: string): JsonSchema => object({ status: { type: 'string', enum: [value] } });
const role = { type: 'string', enum: ['admin', 'editor', 'viewer'] };

/** A [Batch] answer: the single result, or `{results}` with the result or an error per device. */
function batched(single: JsonSchema): JsonSchema {
  const failed = object({ device: string, error: string, code: string });
  const item = { oneOf: [{ allOf: [object({ device: string }), single] }, failed] };
  return { oneOf: [single, object({ results: array(item) })] };
}

const deviceListItem = object(
  {
    id: string,
    name: string,
    status: { type: 'string', enum: ['online', 'offline', 'pending'] },
    owner: string,
    request_id: string,
    device_id: string,
    hostname: string,
    platform: string,
    requester: string,
    fingerprint: string,
    source_address: string,
    key_mismatch: boolean,
    registered_fingerprint: nullable(string),
    replaces: object({ device_id: string, name: string, status: { type: 'string', enum: ['online', 'offline'] } }),
  },
  ['request_id', 'device_id', 'hostname', 'platform', 'requester', 'fingerprint', 'source_address', 'key_mismatch', 'registered_fingerprint', 'replaces'],
);
const deviceStatus = object(
  { status: { type: 'string', enum: ['online', 'offline'] }, health: string, uptime: nullable(integer), last_seen: nullable({ type: 'string', format: 'date-time' }), carrier: { type: 'string', enum: ['tcp', 'quic'] }, carrier_note: string },
  ['carrier', 'carrier_note'],
);
const auditLogs = object({ logs: array(object({ timestamp: { type: 'string', format: 'date-time' }, user: string, action: string, details: string })), truncated: boolean }, ['truncated']);
const accessEntry = { oneOf: [object({ email: string, role }), object({ org_id: string, role })] };
const execResult = object({ output: string, exit_code: integer, timed_out: boolean, error: string }, ['error']);
const dateTime = { type: 'string', format: 'date-time' };
/** A job's other fields (workdir, files, env, steps, …) are the run-spec's: docs/runspec.md, JOB_SCHEMA. */
const job = object({ id: string, enabled: boolean, type: { type: 'string', enum: [...JOB_TYPES] } });
const deployment = object(
  {
    id: string,
    active: boolean,
    jobs: array(job),
    name: string,
    rollback: object({ on_health_failure: {}, stabilization_period_secs: integer }),
    created_at: dateTime,
    updated_at: dateTime,
    redacted: { type: 'boolean', enum: [true] },
  },
  ['name', 'rollback', 'redacted'],
);
const deploymentSummary = object(
  {
    id: string,
    active: boolean,
    jobs: array(job),
    name: string,
    rollback: object({ on_health_failure: {}, stabilization_period_secs: integer }),
    created_at: dateTime,
    updated_at: dateTime,
  },
  ['name', 'rollback'],
);
/** The runtime's report may add detail beyond these (restarts, exit codes, step outcomes, log tail). */
const jobStatus = object(
  {
    id: string,
    status: { type: 'string', enum: [...JOB_STATES] },
    health: { type: 'string', enum: [...HEALTH_STATES] },
    restarts: integer,
    exit_code: nullable(integer),
    reason: string,
    steps: array(object({ name: string, status: string, exit_code: nullable(integer), attempts: integer }, ['exit_code', 'attempts'])),
    log_tail: array(string),
  },
  ['restarts', 'exit_code', 'reason', 'steps', 'log_tail'],
);
const deploymentStatus = object(
  {
    deployment_id: string,
    status: { type: 'string', enum: [...DEPLOYMENT_STATES] },
    jobs: array(jobStatus),
    rollback: object({ reason: string, to_deployment_id: nullable(string) }),
    reported_at: nullable(dateTime),
    online: boolean,
    stale: boolean,
    rolled_back_from: object({ deployment_id: string, reason: string, at: dateTime }),
  },
  ['rollback', 'rolled_back_from'],
);
const forwardSession = object({ session_id: string, device: string, specs: array(string), targets: array(string) });

export const RESULT_SCHEMAS: Record<keyof OperationResults, JsonSchema> = {
  devices_list: array(deviceListItem),
  devices_approve: object({ status: { type: 'string', enum: ['approved'] }, device_id: string, fingerprint: string }),
  devices_reject: status('rejected'),
  device_rename: object({ status: { type: 'string', enum: ['renamed'] }, device_id: string, name: string }),
  device_status: batched(deviceStatus),
  device_audit_logs: batched(auditLogs),
  device_access_list: array(accessEntry),
  device_access_add: status('added'),
  device_access_remove: status('removed'),
  device_ls: array(object({ name: string, is_dir: boolean })),
  device_cp: status('copied'),
  device_sync: status('synced'),
  device_exec: batched(execResult),
  docker_exec: object({ stdout: string, stderr: string, exit_code: integer }),
  forward_start: object({ session_id: string, device: string, targets: array(string), status: { type: 'string', enum: ['started'] } }),
  forward_stop: object({ session_id: string, status: { type: 'string', enum: ['stopped'] } }),
  forward_list: array(forwardSession),
  device_deploy: status('deployed'),
  device_undeploy: status('undeployed'),
  device_deployment_list: batched(object({ deployments: array(deploymentSummary) })),
  device_deployment_new: deployment,
  device_deployment_show: deployment,
  device_deployment_rm: status('removed'),
  device_deployment_active: object({ active_deployment_id: string }),
  device_deployment_activate: status('activated'),
  device_deployment_status: batched(deploymentStatus),
  device_deployment_clone: deployment,
  org_list: array(object({ id: string, owner: string, members: integer })),
  org_create: status('created'),
  org_delete: status('deleted'),
  org_update: status('updated'),
  org_members_list: array(object({ email: string, role })),
  org_members_add: status('added'),
  org_members_remove: status('removed'),
  org_devices_list: array(object({ id: string, name: string, status: { type: 'string', enum: ['online', 'offline'] } })),
  org_devices_add: status('added'),
  org_devices_remove: status('removed'),
};

export const ROUTE_RESULT_SCHEMAS: Record<keyof RouteResults, JsonSchema> = {
  registration_request: object({ request_id: string, fingerprint: string }),
  registration_status: {
    oneOf: [
      object({ status: { type: 'string', enum: ['pending', 'rejected'] } }),
      object({ status: { type: 'string', enum: ['approved'] }, api_key: string, device_id: string }),
    ],
  },
  registrations_reject: object({ status: { type: 'string', enum: ['rejected'] }, count: integer }),
  device_status_one: deviceStatus,
  device_audit_logs_one: auditLogs,
  devices_list_page: object({ items: array(deviceListItem), next_cursor: nullable(string) }),
  deployment_jobs_deploy: object({ status: { type: 'string', enum: ['deployed'] }, deployment_id: string }),
};
