/**
 * The operation vocabulary of the product: every tool of the specification (and the extensions),
 * each entry with its route(s), parameters, result, capability and limits. The server's REST
 * routes, the CLI SDK, `svc` and `svc mcp` are adapters over these entries. The entries are
 * written by group, one file each; this gathers them.
 */
import type { OperationContract, Param, ParamSpec, ParamType } from './contract';
import { DEVICE_OPERATIONS } from './device-operations';
import { FILE_OPERATIONS } from './file-operations';
import { EXEC_OPERATIONS } from './exec-operations';
import { DEPLOYMENT_OPERATIONS } from './deployment-operations';
import { ORG_OPERATIONS } from './org-operations';
import { ACCOUNT_OPERATIONS } from './account-operations';

export { EXEC_DEFAULT_TIMEOUT_SECS, EXEC_MAX_TIMEOUT_SECS } from './exec-operations';

export const OPERATIONS = [...DEVICE_OPERATIONS, ...FILE_OPERATIONS, ...EXEC_OPERATIONS, ...DEPLOYMENT_OPERATIONS, ...ORG_OPERATIONS, ...ACCOUNT_OPERATIONS] as const;

export type OperationName = (typeof OPERATIONS)[number]['name'];

/** The operations that are tools (of tools.md, or EXTENSION_OPERATIONS): what `svc mcp` lists and `svc` has a command for. */
export type ToolName = Exclude<OperationName, Extract<(typeof OPERATIONS)[number], { tool: false }>['name']>;

export function isTool(op: object): boolean {
  return (op as Pick<OperationContract, 'tool'>).tool !== false;
}

/** Operations beyond the tools of the specification (tools.md), marked `extension` in their entries: the parity test allows exactly these. */
export const EXTENSION_OPERATIONS: readonly OperationName[] = OPERATIONS.filter((op) => (op as OperationContract).extension).map((op) => op.name);

/**
 * Operations that no single server route serves: file transfer, container and forwarding sessions
 * are compositions the client runs over its `routes` (file routes, client streams), device_deploy
 * reads its `file` on the caller's side and sends the result to its `jobs` route, and forward_stop
 * and forward_list touch only the caller's own machine. A test keeps this list and the catalog in step.
 */
export const UNROUTED_OPERATIONS: readonly OperationName[] = [
  'device_ls',
  'device_cp',
  'device_sync',
  'docker_exec',
  'forward_start',
  'forward_stop',
  'forward_list',
  'device_deploy',
];

export function findOperation(name: string) {
  return OPERATIONS.find((op) => op.name === name);
}

export type OperationContractOf<N extends OperationName> = Extract<(typeof OPERATIONS)[number], { name: N }>;

type ValueOf<P> = P extends { type: 'string[]' } ? string[] : P extends { type: 'env' } ? Record<string, string> : P extends { type: 'number' } ? number : P extends { type: 'boolean' } ? boolean : P extends { enum: readonly (infer E)[] } ? E : string;
type RequiredKeys<Ps> = { [K in keyof Ps]: Ps[K] extends Param<ParamType, true> ? K : never }[keyof Ps];
export type ParamsInput<Ps> = [keyof Ps] extends [never]
  ? Record<string, never>
  : { [K in RequiredKeys<Ps>]: ValueOf<Ps[K]> } & { [K in Exclude<keyof Ps, RequiredKeys<Ps>>]?: ValueOf<Ps[K]> };
/** A dotted parameter (`target.kind`, `device_info.hostname`) as a field of its nested object: `target: {kind, …}`. */
export type NestedInput<T> = { [K in keyof T as K extends `${string}.${string}` ? never : K]: T[K] } & { [P in ParentOf<keyof T>]: { [K in keyof T as K extends `${P}.${infer F}` ? F : never]: T[K] } };
type ParentOf<K> = K extends `${infer P}.${string}` ? P : never;
/** A route's extras; a route without any is typed with HttpRoute's index signature, which means none. */
type ExtraOf<N extends OperationName> = OperationContractOf<N> extends { http: { extra?: infer E } } ? (E extends Record<string, ParamSpec> ? (string extends keyof E ? {} : E) : {}) : {};

/**
 * What a caller passes to an operation, typed from the catalog: required parameters required,
 * enums as their values. `OperationInput<N>` is the tool's (and `svc mcp`'s) input;
 * `RouteInput<N>` adds the route's optional extras that the SDK may send.
 */
export type OperationInput<N extends OperationName> = ParamsInput<OperationContractOf<N>['params']>;
export type RouteInput<N extends OperationName> = ParamsInput<RouteParams<N>>;
/** An operation's parameters and its route's extras, as the catalog types them. */
export type RouteParams<N extends OperationName> = OperationContractOf<N>['params'] & ExtraOf<N>;

/** The capability an operation needs, as its catalog entry says (typed: `capabilityOf('device_exec')` is `'device:exec'`). */
export function capabilityOf<N extends OperationName>(name: N): OperationContractOf<N>['capability'] {
  return findOperation(name)!.capability as OperationContractOf<N>['capability'];
}
