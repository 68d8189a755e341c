import { findOperation, OperationName } from '@svc/common/operations';

/**
 * What each tool returns, in a model's words: one line per tool, part of its description
 * (docs/mcp.md). Shapes as JSON with field names; "array of" for lists.
 */
export const TOOL_RETURNS: Partial<Record<OperationName, string>> = {
  devices_list: 'array of {id, name, status (online, offline, pending), owner}',
  devices_approve: '{status: "approved", device_id, fingerprint}',
  device_rename: '{status: "renamed", device_id, name}',
  devices_reject: '{status: "rejected"}',
  device_status: '{status (online, offline), health, uptime (s), last_seen, carrier (tcp, quic; null offline), carrier_note? (why not QUIC)}',
  device_audit_logs: '{logs: [{timestamp, user, action, details}]}, newest first',
  device_access_list: 'array of {email or org_id, role}',
  device_access_add: '{status: "added"}',
  device_access_remove: '{status: "removed"}',
  device_ls: 'array of {name, is_dir}',
  device_cp: '{status: "copied"}',
  device_sync: '{status: "synced", dry_run, copy: [path], delete: [path], unchanged, skipped?: [{path, type}] (links, special files left alone)}',
  device_exec: '{output, exit_code, timed_out}',
  docker_exec: '{stdout, stderr, exit_code}',
  forward_start: '{session_id, device, targets, status: "started"}',
  forward_stop: '{session_id, status: "stopped"}',
  forward_list: 'array of {session_id, device, specs, targets}',
  device_deploy: '{status: "deployed", deployment_id}',
  device_undeploy: '{status: "undeployed"}',
  device_deployment_list: '{deployments: [{id, active, name, jobs: [{id, type, enabled}], created_at, updated_at}]}; device_deployment_show has the rest',
  device_deployment_new: 'the new deployment, as device_deployment_show',
  device_deployment_show:
    '{id, active, name, jobs: [{id, type, enabled, env, files, steps, observe, restart}], rollback, created_at, updated_at}; without the deploy role, env values and files read "[redacted]"',
  device_deployment_rm: '{status: "removed"}',
  device_deployment_active: '{active_deployment_id}',
  device_deployment_activate: '{status: "activated"}',
  device_deployment_status:
    '{deployment_id, status, jobs: [{id, status, health, restarts, reason, log_tail}], reported_at, online, stale, rollback?, rolled_back_from?} (log_tail needs the deploy role)',
  device_deployment_clone: 'the new deployment, as device_deployment_show',
  org_list: 'array of {id, owner, members (a count)}',
  org_create: '{status: "created"}',
  org_delete: '{status: "deleted"}',
  org_update: '{status: "updated"}',
  org_members_list: 'array of {email, role}',
  org_members_add: '{status: "added"}',
  org_members_remove: '{status: "removed"}',
  org_devices_list: 'array of {id, name, status (online or offline)}',
  org_devices_add: '{status: "added"}',
  org_devices_remove: '{status: "removed"}',
};

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; oneOf?: readonly Schema[] };

/** A result schema in the same words (`{id, owner, members}`, `array of {…}`), for a tool TOOL_RETURNS does not word by hand. */
function shapeOf(schema: Schema): string {
  if (schema.oneOf) return shapeOf(schema.oneOf[0]);
  if (schema.type === 'array' && schema.items) return `array of ${shapeOf(schema.items)}`;
  if (schema.properties) return `{${Object.entries(schema.properties).map(([name, field]) => (field.properties || field.items ? `${name}: ${shapeOf(field)}` : name)).join(', ')}}`;
  return `the ${schema.type ?? 'value'}`;
}

/** What a tool returns: its words in TOOL_RETURNS, else its result schema's shape. */
export function toolReturns(name: OperationName): string | undefined {
  const schema = findOperation(name)?.result as Schema | undefined;
  return TOOL_RETURNS[name] ?? (schema ? shapeOf(schema) : undefined);
}
