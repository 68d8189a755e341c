import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { OperationContract, OperationName, OPERATIONS, ParamSpec, ParamType } from '@svc/common';
import { OUTPUT_FIELD_LIMIT_BYTES } from './tool-output';

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
  device_rename:
    'An extension beyond the specification\'s tools. Sets the display name devices_list shows and that device parameters accept instead of the id (1-64 characters, no control characters). Needs the admin role on the device. Returns {status: "renamed", device_id, name}.',
  device_exec: `command is the program and its arguments, run without a shell (use ["sh", "-c", "..."] for pipes and redirections). A non-zero exit_code is data, not a failure. output is stdout and stderr interleaved, with terminal escape sequences removed and cut at ${LIMIT_KB} KB.`,
  docker_exec: `Runs the docker CLI on the machine running svc mcp against the device's container engine, reached through the tunnel. args are docker's arguments, e.g. ["ps", "-a"]; start long-running containers detached (-d). stdout and stderr have terminal escape sequences removed and are cut at ${LIMIT_KB} KB each.`,
  forward_start:
    'Each spec is <local>:<remote>: "8080:80" (port 8080 on 127.0.0.1 here to port 80 on the device), "8080:10.0.0.5:80" (a host on the device\'s network), "8000-8010:9000-9010" (a range), "/tmp/d.sock:/run/docker.sock" (unix sockets). The forward runs until forward_stop or until this svc mcp server exits.',
  forward_list: 'The forward sessions of this svc mcp server.',
  device_deploy:
    'file is a path on the machine running svc mcp (relative to its working directory): a compose file (root services:, becomes one job), a run-spec job, or a deployment document (root jobs:, becomes the whole deployment). The files it references are read there and sent with it. Without deployment_id the jobs go into the active deployment (a device without one gets a new, active deployment). A bad file is refused with its line and field.',
  device_undeploy: 'Removes the job from the deployment; on the active deployment the device stops it.',
  device_deployment_new: 'Creates an empty deployment. With active true it becomes the active one at once, and the device stops every job of the previous one.',
  device_deployment_rm: 'The active deployment cannot be removed: activate another one first.',
  device_deployment_activate: 'The device stops the jobs of the previously active deployment and starts these. With a rollback policy it goes back to the previous deployment when the jobs do not get healthy; device_deployment_status then says why.',
  device_deployment_status:
    'The newest status the device reported: status (pending, deploying, running, degraded, failed, rolled_back, stopped) and per job its status, health, restarts and the reason of a failure. "pending" means the device has not reported on this deployment yet.',
  device_deployment_clone: 'Copies the jobs and rollback policy into a new deployment, inactive unless active is true: change it with device_deploy and its deployment_id, then device_deployment_activate.',
};

const BATCH_NOTE =
  '[Batch] Give either device (one name or id) or devices (a list), not both. With devices the result is {"results": [...]}, one element per device: its result fields, or error and code when that device failed.';
const REMOTE_PATH_NOTE = 'A path written <device>:<path> is on that device; a plain path is on the machine running svc mcp (relative to its working directory).';

/** The tools `svc mcp` lists, in catalog order: every operation, only the read-only ones with `readOnly`. */
export function mcpTools(options: { readOnly: boolean }): McpTool[] {
  return (OPERATIONS as readonly OperationContract[])
    .filter((op) => op.readOnly || !options.readOnly)
    .map((op) => ({ name: op.name as OperationName, contract: op, definition: toolDefinition(op) }));
}

function toolDefinition(op: OperationContract): Tool {
  return {
    name: op.name,
    description: describeTool(op),
    inputSchema: inputSchema(op),
    annotations: { title: op.summary, readOnlyHint: op.readOnly },
  };
}

function describeTool(op: OperationContract): string {
  const params = Object.values(op.params);
  const notes = [
    `${op.summary}.`,
    TOOL_NOTES[op.name as OperationName],
    op.batch ? BATCH_NOTE : undefined,
    params.some((p) => p.description.includes('<device>:<path>')) ? REMOTE_PATH_NOTE : undefined,
  ];
  return notes.filter((note) => note !== undefined).join(' ');
}

/** The operation's parameters as the JSON Schema of its MCP input, exactly as the catalog (and tools.md) gives them. */
function inputSchema(op: OperationContract): Tool['inputSchema'] {
  const entries = Object.entries(op.params);
  return {
    type: 'object',
    properties: Object.fromEntries(entries.map(([name, spec]) => [name, paramSchema(spec)])),
    required: entries.filter(([, spec]) => spec.required).map(([name]) => name),
    additionalProperties: false,
  };
}

const JSON_TYPES: Record<ParamType, object> = {
  string: { type: 'string' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  'string[]': { type: 'array', items: { type: 'string' } },
};

function paramSchema(spec: ParamSpec): object {
  return {
    ...JSON_TYPES[spec.type],
    description: spec.description,
    ...(spec.enum ? { enum: [...spec.enum] } : {}),
    ...(spec.default !== undefined ? { default: spec.default } : {}),
  };
}
