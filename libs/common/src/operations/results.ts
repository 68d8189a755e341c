/**
 * Result types of the operations, inferred from their JSON Schemas (each catalog entry's `result`,
 * and the shapes of result-schemas.ts), so a result is written once. The names are those the
 * server, the SDK and the CLI import.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ErrorCode } from '../errors';
import type { DeploymentDocument } from '../deployments/model';
import type * as S from './result-schemas';
import type { OperationContractOf, OperationName } from './catalog';

export type DeviceListItem = FromSchema<typeof S.deviceListItemSchema>;
export type DeviceRenameResult = FromSchema<typeof S.deviceRenameSchema>;
export type DeviceListPage = FromSchema<typeof S.deviceListPageSchema>;
export type DeviceStatusResult = FromSchema<typeof S.deviceStatusSchema>;
export type DeviceConnectionStatus = DeviceStatusResult['status'];
export type AuditEntry = FromSchema<typeof S.auditEntrySchema>;
export type AuditLogsResult = FromSchema<typeof S.auditLogsSchema>;
export type AccessEntry = FromSchema<typeof S.accessEntrySchema>;
export type OrganizationResult = FromSchema<typeof S.organizationSchema>;
export type OrgMemberResult = FromSchema<typeof S.orgMemberSchema>;
export type OrgDeviceItem = FromSchema<typeof S.orgDeviceSchema>;
export type ExecResult = FromSchema<typeof S.execResultSchema>;
export type DirectoryEntry = FromSchema<typeof S.directoryEntrySchema>;
export type ForwardSession = FromSchema<typeof S.forwardSessionSchema>;
export type DeploymentSummary = FromSchema<typeof S.deploymentSummarySchema>;
export type DeploymentStatus = FromSchema<typeof S.deploymentStatusSchema>;

/**
 * A deployment in answers: the run-spec's document (deployments/model.ts, docs/runspec.md), whose
 * jobs deploymentSchema leaves open, plus `redacted`: for a caller without `device:deploy` its env
 * values and inline file contents are replaced by REDACTED.
 */
export type Deployment = DeploymentDocument & { redacted?: true };

/** The type-level twins of schema-builders.ts's `status()` and `batched()`. */
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

/** What a schema says, with a [Batch] answer's item error codes as ErrorCode and deployments as their documents. */
export type InferredResult<Schema> = Schema extends typeof S.deploymentSchema
  ? Deployment
  : Schema extends { oneOf: readonly [infer Single, { properties: { results: unknown } }] }
    ? Batched<Single extends JSONSchema ? FromSchema<Single> : never>
    : Schema extends JSONSchema
      ? FromSchema<Schema>
      : never;

/**
 * The result type of every operation, by name, from its entry's `result`: what the REST route
 * answers, what the CLI prints with --json and what `svc mcp` returns. The SDK is typed by this map.
 */
export interface OperationResults extends ResultsOf<OperationName> {}
/** Resolved member by member (an interface), so `OperationResults[N]` never infers a union of every schema at once. */
type ResultsOf<K extends OperationName> = { [N in K]: InferredResult<OperationContractOf<N>['result']> };

export type OperationResult<N extends keyof OperationResults> = OperationResults[N];

/** What an operation's REST route answers: its result, or the route's second shape (`alsoAnswers`: devices_list's page). */
export type HttpAnswer<N extends OperationName> = OperationResults[N] | (OperationContractOf<N> extends { http: { alsoAnswers: infer A } } ? InferredResult<A> : never);

export type RegistrationApprovalResult = OperationResults['devices_approve'];

export type DeployJobsResult = OperationResults['device_deploy'];
export type UserResult = OperationResults['user_approve'];
