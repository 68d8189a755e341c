/** Result shapes of the operations, exactly as the specification's tool table gives them. */
import type { ErrorCode } from '../errors';
import type { ToolRole } from '../roles';
import type { DeploymentDocument, DeploymentStatusReport, Job, RollbackPolicy } from '../deployments/model';

export type DeviceConnectionStatus = 'online' | 'offline';

export interface DeviceListItem {
  id: string;
  name: string;
  status: DeviceConnectionStatus | 'pending';
  owner: string;
  /** Present on pending registration requests only. */
  request_id?: string;
  device_id?: string;
  hostname?: string;
  platform?: string;
  requester?: string;
  /** The requesting runtime's key fingerprint (XXXX-XXXX-XXXX-XXXX), to compare with the device's display. */
  fingerprint?: string;
  source_address?: string;
  /** The device id is registered with another key (or none recorded): only its owner may approve. */
  key_mismatch?: boolean;
  /** With key_mismatch: the fingerprint the device id is registered with (null if none recorded). */
  registered_fingerprint?: string | null;
  /** The request is for a registered device: approving it replaces that device's key and cuts it off. */
  replaces?: { device_id: string; name: string; status: DeviceConnectionStatus };
}

/** device_rename: the device and its new name. */
export interface DeviceRenameResult {
  status: 'renamed';
  device_id: string;
  name: string;
}

/** devices_list over REST with `limit` or `cursor`: one page; `next_cursor` is null on the last. */
export interface DeviceListPage {
  items: DeviceListItem[];
  next_cursor: string | null;
}

export interface StatusResult<S extends string = string> {
  status: S;
}

export interface DeviceStatusResult {
  status: DeviceConnectionStatus;
  health: string;
  uptime: number | null;
  last_seen: string | null;
  /** While online: the carrier the tunnel runs on (`tcp` or `quic`); absent while offline. */
  carrier?: 'tcp' | 'quic';
  /** While online: why the runtime is not on QUIC, as it reported it (no QUIC binding on its platform, UDP blocked). */
  carrier_note?: string;
}

export interface AuditEntry {
  timestamp: string;
  user: string;
  action: string;
  details: string;
}

export interface AuditLogsResult {
  logs: AuditEntry[];
  /** In a batch answer: set when this device's entries were cut to keep the answer bounded. */
  truncated?: true;
}

/** A failed item carries the error's message and its stable code (as in REST error bodies). */
export type BatchItem<R> = ({ device: string } & R) | { device: string; error: string; code: ErrorCode };

export interface BatchResult<R> {
  results: BatchItem<R>[];
}

export type AccessEntry = ({ email: string } | { org_id: string }) & { role: ToolRole };

export interface OrganizationResult {
  id: string;
  owner: string;
  members: number;
}

export interface OrgMemberResult {
  email: string;
  role: ToolRole;
}

export interface OrgDeviceItem {
  id: string;
  name: string;
  status: DeviceConnectionStatus;
}

export interface RegistrationRequestResult {
  request_id: string;
  /** keyFingerprint(public_key): the runtime shows it, the approver compares. */
  fingerprint: string;
}

export interface RegistrationApprovalResult {
  status: 'approved';
  device_id: string;
  fingerprint: string;
}

export interface RegistrationBulkRejectResult {
  status: 'rejected';
  count: number;
}

export type RegistrationStatusResult =
  | { status: 'pending' }
  | { status: 'approved'; api_key: string; device_id: string }
  | { status: 'rejected' };

/** One device's device_exec result: output is stdout and stderr interleaved as produced. */
export interface ExecResult {
  output: string;
  exit_code: number;
  /** Beyond the spec: the timeout killed the command (exit_code then reports the signal). */
  timed_out: boolean;
  /** An item of a batch that timed out says so here too (`timed out after 30 s`), as the spec's error table wants. */
  error?: string;
}

export interface DirectoryEntry {
  name: string;
  is_dir: boolean;
}

export interface ForwardSession {
  session_id: string;
  device: string;
  specs: string[];
  targets: string[];
}

/**
 * A deployment in answers: the spec's `{id, active, jobs}` with full jobs, plus name, rollback
 * policy and times. For a caller without `device:deploy` its env values and inline file contents
 * are replaced by REDACTED, and `redacted` is true.
 */
export type Deployment = DeploymentDocument & { redacted?: true };

/** device_deployment_list's item: the spec's Deployment with each job as the spec's Job; the whole document is device_deployment_show's. */
export interface DeploymentSummary {
  id: string;
  active: boolean;
  jobs: Pick<Job, 'id' | 'type' | 'enabled'>[];
  name?: string;
  rollback?: RollbackPolicy;
  created_at: string;
  updated_at: string;
}

/**
 * device_deployment_status: the newest report the device sent for the deployment (the spec's
 * `{deployment_id, status, jobs: [{id, status, health}]}` plus its detail). A deployment the device
 * has not reported on yet answers `status: "pending"`, each job `pending`/`unknown`, and
 * `reported_at: null`.
 */
export interface DeploymentStatus extends Omit<DeploymentStatusReport, 'reported_at'> {
  /** When the device last reported on the deployment (its clock); null before its first report. */
  reported_at: string | null;
  /** The device's tunnel is connected now. */
  online: boolean;
  /** What this says may no longer be true: the device is offline, or it stopped reporting on its active deployment (STALE_REPORT_MS). */
  stale: boolean;
  /** On the active deployment after an automatic rollback to it: which deployment was rolled back, why, and when (server time). */
  rolled_back_from?: { deployment_id: string; reason: string; at: string };
}

/** POST /devices/:device/deployments/jobs, what device_deploy sends: the deployment the jobs went into. */
export interface DeployJobsResult {
  status: 'deployed';
  deployment_id: string;
}

/** A [Batch] operation answers its single result for `device`, or BatchResult for `devices`. */
export type Batched<R> = R | BatchResult<R>;

/**
 * The result type of every operation, by name: what the REST route answers, what the CLI prints
 * with --json and what `svc mcp` returns. The SDK is typed by this map.
 */
export interface OperationResults {
  devices_list: DeviceListItem[];
  devices_approve: RegistrationApprovalResult;
  devices_reject: StatusResult<'rejected'>;
  device_rename: DeviceRenameResult;
  device_status: Batched<DeviceStatusResult>;
  device_audit_logs: Batched<AuditLogsResult>;
  device_access_list: AccessEntry[];
  device_access_add: StatusResult<'added'>;
  device_access_remove: StatusResult<'removed'>;
  device_ls: DirectoryEntry[];
  device_cp: StatusResult<'copied'>;
  device_sync: StatusResult<'synced'>;
  device_exec: Batched<ExecResult>;
  docker_exec: { stdout: string; stderr: string; exit_code: number };
  forward_start: { session_id: string; device: string; targets: string[]; status: 'started' };
  forward_stop: { session_id: string; status: 'stopped' };
  forward_list: ForwardSession[];
  device_deploy: StatusResult<'deployed'>;
  device_undeploy: StatusResult<'undeployed'>;
  device_deployment_list: Batched<{ deployments: DeploymentSummary[] }>;
  device_deployment_new: Deployment;
  device_deployment_show: Deployment;
  device_deployment_rm: StatusResult<'removed'>;
  device_deployment_active: { active_deployment_id: string };
  device_deployment_activate: StatusResult<'activated'>;
  device_deployment_status: Batched<DeploymentStatus>;
  device_deployment_clone: Deployment;
  org_list: OrganizationResult[];
  org_create: StatusResult<'created'>;
  org_delete: StatusResult<'deleted'>;
  org_update: StatusResult<'updated'>;
  org_members_list: OrgMemberResult[];
  org_members_add: StatusResult<'added'>;
  org_members_remove: StatusResult<'removed'>;
  org_devices_list: OrgDeviceItem[];
  org_devices_add: StatusResult<'added'>;
  org_devices_remove: StatusResult<'removed'>;
}

export type OperationResult<N extends keyof OperationResults> = OperationResults[N];

/**
 * Answers of the REST routes that are not tools of the specification: the runtime's registration,
 * the bulk reject, one device's status and audit log by path, a page of the device listing, the
 * deploy route that device_deploy composes (it reads its file on the caller's side).
 */
export interface RouteResults {
  registration_request: RegistrationRequestResult;
  registration_status: RegistrationStatusResult;
  registrations_reject: RegistrationBulkRejectResult;
  device_status_one: DeviceStatusResult;
  device_audit_logs_one: AuditLogsResult;
  devices_list_page: DeviceListPage;
  deployment_jobs_deploy: DeployJobsResult;
}
