/** Parameters that several routes of the catalog share (catalog.ts): the file routes', the client streams'. */
import type { ErrorCode } from '../errors';
import { DEVICE_REF, optStr, RouteBody, str, SubRoute, subRoute } from './contract';
import { FILE_LIMITS } from '../file-limits';
import { DEPLOY_REQUEST_SCHEMA, JOB_ID_PATTERN } from '../deployments/schema';

export const device = str('device name or id', DEVICE_REF);

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
/** A client stream on a device: its target in the path, its arguments in `svc-args`. */
export const deviceStream = (what: string, capability: SubRoute['capability']) => subRoute('POST', `/v1/devices/{device}/${what}`, capability, { device }, { stream: true });


/** device_exec's limits beyond its parameters (OperationContract.limits). */
export const EXEC_LIMITS = {
  /** Largest `output` of a single-device JSON answer; NDJSON and the exec stream are not capped. */
  outputCapBytes: 16 * 1024 * 1024,
  /** What all devices of one [Batch] answer may hold together. */
  batchOutputBudgetBytes: 64 * 1024 * 1024,
  /** How long past `timeout_secs` the server waits for the device to report the timeout itself. */
  deviceGraceMs: 15_000,
} as const;
