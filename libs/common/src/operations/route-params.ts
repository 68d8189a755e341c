/** Parameters that several routes of the catalog share (catalog.ts): the file routes', the client streams'. */
import type { ErrorCode } from '../errors';
import { DEVICE_REF, envMap, num, optStr, ParamSpec, RouteBody, str, strList, SubRoute, subRoute } from './contract';
import { FILE_LIMITS } from '../file-limits';
import { DEPLOY_REQUEST_SCHEMA, JOB_ID_PATTERN } from '../deployments/schema';
import { TOOL_ROLES } from '../roles';

export const device = str('device name or id', DEVICE_REF);
/** A role a tool grants (device access, organization members): the tool-facing names. */
export const role = str('role', { enum: TOOL_ROLES });

/** A job's log (device_deploy's `job_logs` route): how many of the last lines come first. */
export const JOB_LOGS_DEFAULT_TAIL = 100;
export const JOB_LOGS_MAX_TAIL = 10_000;
export const JOB_ID = { pattern: JOB_ID_PATTERN, rule: 'a job id (1-63 of a-z 0-9 _ . -, starting with a letter or digit)' } as const;

/** The file routes' parameters (docs/protocol.md, "Files"); the server checks the path's text again (checkPathText). */
export const remotePath = (description: string) => str(description, { maxLength: FILE_LIMITS.maxPathBytes });
export const PATH = remotePath("path on the device: absolute, or relative to the runtime's home (empty: the home)");
const SYNC_ID = { pattern: '^[A-Za-z0-9_-]{8,64}$', rule: 'a sync id (8-64 of A-Z a-z 0-9 _ -)' } as const;
export const syncId = str('id grouping the calls of one sync: audited once, as device.files_synced', SYNC_ID);
export const TRANSFER = {
  device,
  path: PATH,
  within: optStr('refuse unless the path stays inside this directory on the device, symbolic links included (sync)', { maxLength: FILE_LIMITS.maxPathBytes }),
  sync: optStr(syncId.description, SYNC_ID),
};
/** The refusals of a route whose answer comes from the device (routeErrors beyond every route's): what it says, or its absence. */
export const ON_DEVICE: readonly ErrorCode[] = ['NOT_FOUND', 'DEVICE_OFFLINE', 'TIMEOUT'];
/** The same for the file routes, whose device also refuses a busy or existing path (fs-errors.ts). */
export const ON_DEVICE_FILES: readonly ErrorCode[] = [...ON_DEVICE, 'CONFLICT'];
/** device_cp's upload body: the file's bytes; size, mode, mtime and checksum travel in x-svc-* headers (or the checksum as a trailer). */
export const FILE_BYTES: RouteBody = { media: 'application/octet-stream', schema: { type: 'string', format: 'binary' } };
/** device_deploy's `jobs` body: a DeployRequest (docs/runspec.md), read after authorization with its own size limit. */
export const DEPLOY_BODY: RouteBody = { media: 'application/json', schema: DEPLOY_REQUEST_SCHEMA };
/**
 * A client stream on a device: its target in the path, its arguments in `svc-args`, checked
 * against `args` by the server's route validator before the operation runs.
 */
export const deviceStream = <const A extends Record<string, ParamSpec>>(what: string, capability: SubRoute['capability'], args: A) =>
  subRoute('POST', `/v1/devices/{device}/${what}`, capability, { device }, { stream: true, args });

/** No NUL in an argv item or a value handed to execve. */
export const NO_NUL = { pattern: '^[^\\u0000]*$', patternProblem: 'must not contain NUL characters' } as const;

/** Terminal sizes a shell may ask for; beyond them a client is confused, not describing a screen. */
export const SHELL_LIMITS = {
  minSize: 1,
  maxSize: 1000,
  defaultCols: 80,
  defaultRows: 24,
  defaultTerm: 'xterm-256color',
  /** Longest `TERM` value (terminfo names are short). */
  maxTermChars: 64,
} as const;
export const TERM_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._+-]*$';
const terminalSize = (what: string, dflt: number) =>
  num(what, dflt, { integer: true, minimum: SHELL_LIMITS.minSize, maximum: SHELL_LIMITS.maxSize, rule: `a whole number from ${SHELL_LIMITS.minSize} to ${SHELL_LIMITS.maxSize}` });
/** Variables for the command's environment (the runtime's own stay for deployments). */
export const ENV = envMap('environment variables for the command', { maxItems: 1024, maxLength: 32 * 1024, rule: 'an object of variable names (no =, no NUL) to strings without NUL, at most 1024 of them' });

/** The `svc-args` of device_exec's `shell` stream (docs/protocol.md, "Shell"). */
export const SHELL_ARGS = {
  command: strList("argv to run on the PTY instead of the device user's login shell", false, { minItems: 1, maxItems: 4096, maxLength: 32 * 1024, ...NO_NUL }),
  cols: terminalSize('terminal columns', SHELL_LIMITS.defaultCols),
  rows: terminalSize('terminal rows', SHELL_LIMITS.defaultRows),
  term: optStr('TERM on the device', { default: SHELL_LIMITS.defaultTerm, maxLength: SHELL_LIMITS.maxTermChars, pattern: TERM_NAME_PATTERN, rule: 'a terminal type name such as xterm-256color' }),
  env: ENV,
};

/**
 * The `svc-args` of forward_start's stream: `target` is `{kind: tcp, host?, port}` or `{kind:
 * unix, path}`; which fields go with which kind, and a path's length in bytes, are
 * parseForwardTarget's (forward-target.ts), as for a forward spec.
 */
export const FORWARD_ARGS = {
  'target.kind': str('tcp or unix', { enum: ['tcp', 'unix'] }),
  'target.host': optStr('host on the device\'s network (tcp; the device itself when omitted)', { minLength: 1, maxLength: 253 }),
  'target.port': num('port (tcp)', undefined, { integer: true, minimum: 1, maximum: 65535, rule: 'a port number from 1 to 65535' }),
  'target.path': optStr('absolute socket path on the device (unix)', { minLength: 1, maxLength: 107 }),
};


/** device_exec's limits beyond its parameters (OperationContract.limits). */
export const EXEC_LIMITS = {
  /** Largest `output` of a single-device JSON answer; NDJSON and the exec stream are not capped. */
  outputCapBytes: 16 * 1024 * 1024,
  /** What all devices of one [Batch] answer may hold together. */
  batchOutputBudgetBytes: 64 * 1024 * 1024,
  /** How long past `timeout_secs` the server waits for the device to report the timeout itself. */
  deviceGraceMs: 15_000,
} as const;
