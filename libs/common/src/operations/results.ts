/**
 * Result types of the operations, inferred from their JSON Schemas (result-schemas.ts), so a
 * result is written once. The names are those the server, the SDK and the CLI import.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ErrorCode } from '../errors';
import type { DeploymentDocument } from '../deployments/model';
import type * as S from './result-schemas';

type Schemas = typeof S.RESULT_SCHEMAS;
type RouteSchemas = typeof S.ROUTE_RESULT_SCHEMAS;

export type DeviceListItem = FromSchema<typeof S.deviceListItemSchema>;
export type DeviceRenameResult = FromSchema<typeof S.deviceRenameSchema>;
export type DeviceListPage = FromSchema<RouteSchemas['devices_list_page']>;
export type DeviceStatusResult = FromSchema<typeof S.deviceStatusSchema>;
export type DeviceConnectionStatus = DeviceStatusResult['status'];
export type AuditEntry = FromSchema<typeof S.auditEntrySchema>;
export type AuditLogsResult = FromSchema<typeof S.auditLogsSchema>;
export type AccessEntry = FromSchema<typeof S.accessEntrySchema>;
export type OrganizationResult = FromSchema<typeof S.organizationSchema>;
export type OrgMemberResult = FromSchema<typeof S.orgMemberSchema>;
export type OrgDeviceItem = FromSchema<typeof S.orgDeviceSchema>;
export type RegistrationRequestResult = FromSchema<RouteSchemas['registration_request']>;
export type RegistrationApprovalResult = FromSchema<Schemas['devices_approve']>;
export type RegistrationBulkRejectResult = FromSchema<RouteSchemas['registrations_reject']>;
export type RegistrationStatusResult = FromSchema<RouteSchemas['registration_status']>;
export type ExecResult = FromSchema<typeof S.execResultSchema>;
export type DirectoryEntry = FromSchema<typeof S.directoryEntrySchema>;
export type ForwardSession = FromSchema<typeof S.forwardSessionSchema>;
export type DeploymentSummary = FromSchema<typeof S.deploymentSummarySchema>;
export type DeploymentStatus = FromSchema<typeof S.deploymentStatusSchema>;
export type DeployJobsResult = FromSchema<RouteSchemas['deployment_jobs_deploy']>;

/**
 * A deployment in answers: the run-spec's document (deployments/model.ts, docs/runspec.md), whose
 * jobs deploymentSchema leaves open, plus `redacted`: for a caller without `device:deploy` its env
 * values and inline file contents are replaced by REDACTED.
 */
export type Deployment = DeploymentDocument & { redacted?: true };

/** The type-level twins of result-schemas.ts's `status()` and `batched()` builders. */
export interface StatusResult<S extends string = string> {
  status: S;
}
/** A failed item carries the error's message and its stable code (as in REST error bodies). */
export type BatchItem<R> = ({ device: string } & R) | { device: string; error: string; code: ErrorCode };
export interface BatchResult<R> {
  results: BatchItem<R>[];
}
/** A [Batch] operation answers its single result for `device`, or BatchResult for `devices`. */
export type Batched<R> = R | BatchResult<R>;

/** What the schema says, with a [Batch] answer's item error codes as ErrorCode and deployments as their documents. */
type Inferred<N extends keyof Schemas> = Schemas[N] extends typeof S.deploymentSchema
  ? Deployment
  : Schemas[N] extends { oneOf: readonly [infer Single, unknown] }
    ? Batched<Single extends JSONSchema ? FromSchema<Single> : never>
    : FromSchema<Schemas[N]>;

/**
 * The result type of every operation, by name: what the REST route answers, what the CLI prints
 * with --json and what `svc mcp` returns. The SDK is typed by this map.
 */
export interface OperationResults extends ResultsOf<Schemas> {}
/** Resolved member by member (an interface), so `OperationResults[N]` never infers a union of every schema at once. */
type ResultsOf<T> = { [N in keyof T & keyof Schemas]: Inferred<N> };

export type OperationResult<N extends keyof OperationResults> = OperationResults[N];

/** Answers of the REST routes that are not tools of the specification (ROUTE_RESULT_SCHEMAS). */
export interface RouteResults extends RouteResultsOf<RouteSchemas> {}
type RouteResultsOf<T> = { [N in keyof T & keyof RouteSchemas]: FromSchema<RouteSchemas[N]> };
