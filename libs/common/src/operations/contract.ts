/**
 * The operation vocabulary of the product: every tool of the specification, with its exact
 * parameters. The server's REST routes, the CLI SDK and `svc mcp` are adapters over these entries.
 */
import type { AnyCapability, Capability } from '../roles';
import { ErrorCode, HTTP_STATUS_BY_CODE } from '../errors';
import { LIMITS } from '../limits';
import type { JsonSchema } from './schema-builders';

/** `env`: environment variables, names (no `=`, no NUL) to string values (the shell and exec streams'). */
export type ParamType = 'string' | 'number' | 'boolean' | 'string[]' | 'env';

/**
 * What the server accepts beyond the type (the route's input schema, routeInputSchema): the
 * tools.md listing of `svc mcp` shows type, allowed values and default only.
 */
export interface ParamLimits {
  /** A string's length; for a string[], each item's. */
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  integer?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  /** How a value outside these limits is refused: `<name> must be <rule>`. */
  rule?: string;
  /** How a value that does not match `pattern` is refused, when `must be` does not say it: `<name> <patternProblem>`. */
  patternProblem?: string;
}

export interface ParamSpec extends ParamLimits {
  type: ParamType;
  required: boolean;
  default?: string | number | boolean;
  enum?: readonly string[];
  description: string;
}

/** A ParamSpec that keeps its type, required flag and allowed values in the type system (see OperationInput). */
export type Param<T extends ParamType, R extends boolean, X = {}> = { type: T; required: R; description: string; default?: ParamSpec['default'] } & X;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The REST route that serves an operation. `{name}` segments of the path are the operation's own
 * parameters; the others travel in the query string (GET, DELETE) or the JSON body (everything else).
 */
export interface HttpRoute {
  method: HttpMethod;
  path: string;
  /**
   * Optional parameters the route takes beyond the tool's own (devices_list's paging and filters,
   * device_exec's stdin). They travel like the others; the tool never sends them, the SDK may.
   */
  extra?: Record<string, ParamSpec>;
  /**
   * Two parameters of which a call gives exactly one, both optional on this route (devices_approve:
   * its `device`, or the `request_id` its older callers send).
   */
  either?: readonly [string, string];
  /** A second shape the route answers, besides the operation's `result` (devices_list's page, when paging is asked for). */
  alsoAnswers?: JsonSchema;
  /** Refusals beyond every route's (routeErrors): the users API's unknown or already decided account. */
  errors?: readonly ErrorCode[];
}

/**
 * What an operation needs, decided by the server's AccessPolicy: a capability on its `device`, on
 * its organization (`org_id` / `id`) or on the server; one of each kind when it touches both (an
 * organization's device moves); for a file transfer, one per direction; null when a signed-in
 * caller is enough (the answer holds only what the caller may see, or the work is the caller's own).
 */
export type OperationCapability = AnyCapability | readonly AnyCapability[] | FileTransferCapability | null;

/** A transfer reads from the device (`<device>:<path>` is the source) or writes to it. */
export interface FileTransferCapability {
  fromDevice: Capability;
  toDevice: Capability;
}

/** Every capability an operation may need, whichever way it runs. */
export function capabilitiesOf(op: Pick<OperationContract, 'capability'>): AnyCapability[] {
  const needs = op.capability;
  if (needs === null) return [];
  if (typeof needs === 'string') return [needs];
  if (Array.isArray(needs)) return [...needs];
  const transfer = needs as FileTransferCapability;
  return [transfer.fromDevice, transfer.toDevice];
}

export interface OperationContract {
  name: string;
  summary: string;
  /** [Batch] tools take `device` or `devices` (mutually exclusive) and answer `{results: [...]}`. */
  batch: boolean;
  /**
   * Changes nothing anywhere (server, device or the caller's machine): the tools `svc mcp
   * --read-only` offers. A tool that can change something, even only sometimes (device_exec,
   * device_sync with dry_run), is not read-only.
   */
  readOnly: boolean;
  params: Record<string, ParamSpec>;
  /** What it answers (its REST route, the CLI's --json, `svc mcp`), as JSON Schema; results.ts infers its type. */
  result: JsonSchema;
  capability: OperationCapability;
  /** Absent while no single server route serves the operation (see UNROUTED_OPERATIONS). */
  http?: HttpRoute;
  /** Its limits beyond its parameters' (output caps, grace periods), which the server, the CLI and `svc mcp` read from here. */
  limits?: Record<string, number>;
  /**
   * The routes a client composes the operation from (file transfer, deploy and a job's log) and
   * its client streams, by name: the server binds each from here, as it binds `http`.
   */
  routes?: Record<string, SubRoute>;
  /**
   * The `svc` command (`orgs show`) derived from this entry (apps/cli/src/catalog-command.ts),
   * for a tool without a command written by hand.
   */
  command?: string;
  /**
   * false: a REST operation that is no tool (not in tools.md, not an extension): `svc mcp` does not
   * list it and no `svc` command is required for it; the SDK calls it by name like any other.
   */
  tool?: false;
  /** A tool beyond those of the specification (tools.md): the parity test allows exactly these (EXTENSION_OPERATIONS). */
  extension?: true;
}

/**
 * One route of an operation that no single route serves (OperationContract.routes): its `{device}`
 * is the target, on which the server has AccessPolicy decide `capability` (one of the operation's)
 * before the handler runs, and its `params` (the path's included) are checked like an operation's.
 */
export interface SubRoute {
  method: HttpMethod;
  path: string;
  capability: Capability;
  params: Record<string, ParamSpec>;
  /**
   * The handler reads the request body itself (file bytes, a document above the JSON limit): its
   * media type and schema; `params` are the path's and the query's.
   */
  rawBody?: RouteBody;
  /** What a REST route answers with 200 (every one but a client stream says). */
  answer?: RouteAnswer;
  /** Refusals beyond every route's (RouteErrors): those of a route that reaches the device. */
  errors?: readonly ErrorCode[];
  /**
   * A client stream of the HTTP/2 endpoint (docs/protocol.md, "Client streams"), not a REST
   * route: its `svc-args` are checked against `args` like a route's input, before the service runs.
   */
  stream?: true;
  /** A client stream's `svc-args`, with their limits (its path's `device` is in `params`). */
  args?: Record<string, ParamSpec>;
}

export type AnswerMedia = 'application/json' | 'application/x-ndjson' | 'application/octet-stream' | 'text/plain' | 'text/event-stream';

/** A route's 200 answer: its media type and its JSON Schema. */
export interface RouteAnswer {
  media: AnswerMedia;
  schema: JsonSchema;
}

/** A raw request body: its media type and its JSON Schema (bytes are `{type: string, format: binary}`). */
export interface RouteBody {
  media: 'application/octet-stream' | 'application/json';
  schema: Record<string, unknown>;
}

export const subRoute = <const P extends Record<string, ParamSpec>, const O extends Pick<SubRoute, 'rawBody' | 'answer' | 'errors' | 'stream' | 'args'> = {}>(
  method: HttpMethod,
  path: string,
  capability: Capability,
  params: P,
  options?: O,
) => ({ method, path, capability, params, ...options }) as { method: HttpMethod; path: string; capability: Capability; params: P } & O;

/** The answer of a route, its schema typed as the SDK reads it: JSON by default. */
export const answer = <const S extends JsonSchema>(schema: S, media: AnswerMedia = 'application/json') => ({ media, schema }) as { media: AnswerMedia; schema: S };

/**
 * The refusals a route can answer, by status, each with its codes: bad input and no valid token
 * on every route; not allowed where a capability is needed; not found where the route names a
 * device or an organization; too large where the body is raw; then the route's own (`errors`).
 */
export function routeErrors(route: Pick<SubRoute, 'path' | 'rawBody' | 'errors'> & { capability: unknown; params: Record<string, ParamSpec> }): Map<number, ErrorCode[]> {
  const codes: ErrorCode[] = ['INVALID_INPUT', 'UNAUTHENTICATED'];
  if (route.capability !== null) codes.push('FORBIDDEN');
  const names = [...pathParams(route), ...Object.keys(route.params)];
  if (names.some((name) => name === 'device' || name === 'devices')) codes.push('DEVICE_NOT_FOUND');
  if (names.some((name) => name === 'org_id' || name === 'id')) codes.push('NOT_FOUND');
  if (route.rawBody) codes.push('PAYLOAD_TOO_LARGE');
  codes.push(...(route.errors ?? []));
  return errorsByStatus(codes);
}

/** Error codes grouped by the HTTP status each answers with, each once. */
export function errorsByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(HTTP_STATUS_BY_CODE[code], [...(byStatus.get(HTTP_STATUS_BY_CODE[code]) ?? []), code]);
  return byStatus;
}

/** A catalog path with its `{name}` segments filled in, URI-encoded. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([a-z_]+)\}/g, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${path} needs ${name}`);
    return encodeURIComponent(value);
  });
}

export const route = <const E extends Record<string, ParamSpec> = {}>(method: HttpMethod, path: string, extra?: E) =>
  (extra ? { method, path, extra } : { method, path }) as Omit<HttpRoute, 'extra'> & { extra?: E };

/** The parameters an operation's route carries in its path, in order. */
export function pathParams(http: Pick<HttpRoute, 'path'>): string[] {
  return [...http.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
}

/**
 * Where each parameter travels on the operation's route. GET and DELETE carry no body (the server
 * refuses one), nor does a route whose body is no JSON object (`rawBody`): their other parameters
 * travel in the query string.
 */
export function paramLocation(http: Pick<HttpRoute, 'method' | 'path'> & { rawBody?: RouteBody }, param: string): 'path' | 'query' | 'body' {
  if (pathParams(http).includes(param)) return 'path';
  return http.method === 'GET' || http.method === 'DELETE' || http.rawBody ? 'query' : 'body';
}

/**
 * The request that performs an operation over REST: path parameters substituted (URI-encoded),
 * the rest in `query` (GET, DELETE; lists as repeated keys) or `body`. Parameters left undefined are
 * not sent. The CLI SDK sends exactly this.
 */
export interface HttpRequestSpec {
  method: HttpMethod;
  path: string;
  query: [string, string][];
  body?: Record<string, unknown>;
}

export function httpRequestFor(op: OperationContract, input: Record<string, unknown>): HttpRequestSpec {
  const http = op.http;
  if (!http) throw new Error(`${op.name} has no REST route`);
  const known = { ...op.params, ...http.extra };
  const query: [string, string][] = [];
  const body: Record<string, unknown> = {};
  let path = http.path;
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (!(name in known)) throw new Error(`${op.name} has no parameter ${name}`);
    const where = paramLocation(http, name);
    if (where === 'path') path = path.replace(`{${name}}`, () => encodeURIComponent(String(value)));
    else if (where === 'query') for (const item of Array.isArray(value) ? value : [value]) query.push([name, String(item)]);
    else body[name] = value;
  }
  const missing = Object.entries(op.params).filter(([name, spec]) => spec.required && input[name] === undefined);
  if (missing.length > 0) throw new Error(`${op.name} needs ${missing.map(([name]) => name).join(', ')}`);
  const sendsBody = http.method !== 'GET' && http.method !== 'DELETE';
  return sendsBody ? { method: http.method, path, query, body } : { method: http.method, path, query };
}

export function defineOperation<const T extends OperationContract>(op: T): T {
  return op;
}

type ParamExtra = Partial<Pick<ParamSpec, 'required' | 'default' | 'enum'>> & ParamLimits;
type IsRequired<X> = X extends { required: false } ? false : true;

export function str<const X extends ParamExtra = {}>(description: string, extra?: X): Param<'string', IsRequired<X>, X>;
export function str(description: string, extra: ParamExtra = {}): ParamSpec {
  return { type: 'string', required: true, description, ...extra };
}
export const optStr = <const X extends Omit<ParamExtra, 'required'> = {}>(description: string, extra?: X) =>
  str(description, { required: false, ...extra } as X & { required: false });
export const num = (description: string, dflt?: number, limits: ParamLimits = {}) =>
  ({ type: 'number', required: false, description, ...(dflt === undefined ? {} : { default: dflt }), ...limits }) as Param<'number', false>;
export const bool = (description: string, dflt: boolean) =>
  ({ type: 'boolean', required: false, default: dflt, description }) as Param<'boolean', false>;
/** A boolean with no default: left out, it filters nothing (users_list's `active`). */
export const optBool = (description: string) => ({ type: 'boolean', required: false, description }) as Param<'boolean', false>;
/** Environment variables; `limits` bound each value's length (maxLength) and the count (maxItems). */
export const envMap = (description: string, limits: ParamLimits = {}) => ({ type: 'env', required: false, description, ...limits }) as Param<'env', false>;
export const strList = <const R extends boolean = true>(description: string, required: R = true as R, limits: ParamLimits = {}) =>
  ({ type: 'string[]', required, description, ...limits }) as Param<'string[]', R>;

/** A device reference (name or id) as the server accepts it. */
export const DEVICE_REF: ParamLimits = { minLength: 1, maxLength: 256 };

/** Parameters every [Batch] operation has in addition to its own. */
export const BATCH_TARGET = {
  device: optStr('device name or id (exclusive with devices)', DEVICE_REF),
  devices: strList('device names or ids (exclusive with device)', false, { ...DEVICE_REF, minItems: 1, maxItems: LIMITS.maxBatchSize }),
} as const;
