import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { inputSchema as operationSchema, isTool, OperationContract, OperationName, OPERATIONS } from '@svc/common';
import { OUTPUT_FIELD_LIMIT_BYTES } from './tool-output';
import { toolReturns } from './tool-returns';

/** A catalog operation with its MCP listing. */
export interface McpTool {
  name: OperationName;
  contract: OperationContract;
  definition: Tool;
}

const LIMIT_KB = OUTPUT_FIELD_LIMIT_BYTES / 1024;

/**
 * What a model needs beyond the catalog summary to call a tool well: how a command is written,
 * what is data and what is failure, how long a forward lives. Generic notes ([Batch], remote
 * paths) are derived from the catalog instead.
 */
const TOOL_NOTES: Partial<Record<OperationName, string>> = {
  devices_list: 'Pending registrations are listed with status "pending", their request_id and the fingerprint to compare before devices_approve.',
  devices_approve:
    'Takes the request_id of a pending registration; compare its fingerprint with the one the device shows first. A request listed with "replaces" is for a registered device id: approving it would replace that device\'s key and cut the device using it off, so this tool refuses it (CONFLICT) and a person must confirm it with "svc devices approve <request_id> --yes".',
  devices_reject: 'Rejects a pending registration, or removes an approved device.',
  device_rename: 'Extension beyond the spec. Sets the display name (1-64 characters, no control characters); needs admin on the device.',
  device_exec: `command is argv, no shell (["sh", "-c", "..."] for pipes). A non-zero exit_code is data. output: stdout and stderr, escapes removed, cut at ${LIMIT_KB} KB.`,
  docker_exec: `docker runs here, through the tunnel; args e.g. ["ps", "-a"]; long-running containers with -d. Cut at ${LIMIT_KB} KB per stream.`,
  forward_start: 'specs: "8080:80" (local to device port), "8080:10.0.0.5:80" (a host the device reaches), "8000-8010:9000-9010", "/tmp/d.sock:/run/docker.sock". Runs until forward_stop or until svc mcp exits.',
  forward_list: 'The forward sessions of this svc mcp server.',
  device_deploy:
    'file is a path here: a compose file (one job), a run-spec job, or a deployment document (root jobs:, the whole deployment); files it references are sent along. Without deployment_id: into the active deployment (a new active one if none).',
  device_undeploy: 'On the active deployment the device stops the job.',
  device_deployment_new: 'Empty; with active true the device stops the previous jobs at once.',
  device_deployment_rm: 'The active deployment cannot be removed: activate another first.',
  device_deployment_activate: 'The device stops the previous jobs, starts these, and with a rollback policy goes back if they do not get healthy.',
  device_deployment_status:
    'status: pending (not reported yet), deploying, running, degraded, failed, rolled_back, stopped. stale: offline, or no report for 3 min.',
  device_deployment_clone: 'Inactive unless active is true; change it with device_deploy and its deployment_id, then activate.',
};

const BATCH_NOTE = '[Batch] Give either device (one) or devices (a list); devices: {results: [{device, ...result} or {device, error, code}]}.';
const REMOTE_PATH_NOTE = '<device>:<path> is on the device, a plain path here.';

/**
 * Parameters whose name says it all, given the server's instructions (device names, [Batch]
 * targets, deployment_id defaulting to the active deployment): listed without a description, so
 * that tools/list stays small (docs/mcp.md).
 */
const SELF_EXPLAINED = new Set(['device', 'devices', 'deployment_id', 'org_id', 'id', 'new_id', 'job_id', 'session_id', 'role', 'timeout_secs', 'spec_type', 'name', 'active', 'source', 'dest']);

/** The tools `svc mcp` lists, in catalog order: every tool operation, only the read-only ones with `readOnly`. */
export function mcpTools(options: { readOnly: boolean }): McpTool[] {
  return (OPERATIONS as readonly OperationContract[])
    .filter((op) => isTool(op) && (op.readOnly || !options.readOnly))
    .map((op) => ({ name: op.name as OperationName, contract: op, definition: toolDefinition(op) }));
}

function toolDefinition(op: OperationContract): Tool {
  return {
    name: op.name,
    description: describeTool(op),
    inputSchema: inputSchema(op),
    ...(op.readOnly ? { annotations: { readOnlyHint: true } } : {}),
  };
}

/** `<summary>. Returns <shape>. <note>`: what it does, what it returns, what a model must know to call it. */
function describeTool(op: OperationContract): string {
  const returns = toolReturns(op.name as OperationName);
  const notes = [
    `${op.summary}.`,
    returns === undefined ? undefined : `Returns ${returns}.`,
    TOOL_NOTES[op.name as OperationName],
    op.batch ? BATCH_NOTE : undefined,
    Object.values(op.params).some((p) => p.description.includes('<device>:<path>')) ? REMOTE_PATH_NOTE : undefined,
  ];
  return notes.filter((note) => note !== undefined).join(' ');
}

/** The operation's parameters as the JSON Schema of its MCP input, exactly as the catalog (and tools.md) gives them. */
function inputSchema(op: OperationContract): Tool['inputSchema'] {
  return operationSchema(op.params, { describe: (name) => !SELF_EXPLAINED.has(name) }) as Tool['inputSchema'];
}
