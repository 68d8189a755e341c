/**
 * The operation vocabulary of the product: every tool of the specification, with its exact
 * parameters. The server's REST routes, the CLI SDK and `svc mcp` are adapters over these entries.
 */
export type ParamType = 'string' | 'number' | 'boolean' | 'string[]';

export interface ParamSpec {
  type: ParamType;
  required: boolean;
  default?: string | number | boolean;
  enum?: readonly string[];
  description: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The REST route that serves an operation. `{name}` segments of the path are the operation's own
 * parameters; the others travel in the query string (GET) or the JSON body (everything else).
 */
export interface HttpRoute {
  method: HttpMethod;
  path: string;
}

export interface OperationContract {
  name: string;
  summary: string;
  /** [Batch] tools take `device` or `devices` (mutually exclusive) and answer `{results: [...]}`. */
  batch: boolean;
  params: Record<string, ParamSpec>;
  /** Absent while no single server route serves the operation (see UNROUTED_OPERATIONS). */
  http?: HttpRoute;
}

export const route = (method: HttpMethod, path: string): HttpRoute => ({ method, path });

/** The parameters an operation's route carries in its path, in order. */
export function pathParams(http: HttpRoute): string[] {
  return [...http.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
}

/** Where each parameter travels on the operation's route. */
export function paramLocation(http: HttpRoute, param: string): 'path' | 'query' | 'body' {
  if (pathParams(http).includes(param)) return 'path';
  return http.method === 'GET' ? 'query' : 'body';
}

export function defineOperation<const T extends OperationContract>(op: T): T {
  return op;
}

export const str = (description: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({
  type: 'string',
  required: true,
  description,
  ...extra,
});
export const optStr = (description: string, extra: Partial<ParamSpec> = {}): ParamSpec =>
  str(description, { required: false, ...extra });
export const num = (description: string, dflt: number): ParamSpec => ({
  type: 'number',
  required: false,
  default: dflt,
  description,
});
export const bool = (description: string, dflt: boolean): ParamSpec => ({
  type: 'boolean',
  required: false,
  default: dflt,
  description,
});
export const strList = (description: string, required = true): ParamSpec => ({
  type: 'string[]',
  required,
  description,
});

/** Parameters every [Batch] operation has in addition to its own. */
export const BATCH_TARGET = {
  device: optStr('device name or id (exclusive with devices)'),
  devices: strList('device names or ids (exclusive with device)', false),
} as const;
