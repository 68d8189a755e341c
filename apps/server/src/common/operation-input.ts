import Ajv, { ValidateFunction } from 'ajv';
import { HttpMethod, HttpRoute, InvalidInputError, RouteBody, inputProblems, inputSchema, OperationContract, paramLocation, ParamSpec, ROUTE_INPUTS, RouteInputName, routeInputSchema, routeParams, SubRoute } from '@svc/common';
import { prototypeKeyPath, summarize } from './validation.pipe';

/** What a request of a catalog route carries, wherever each parameter travels. */
export interface RouteRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
}

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const validators = new Map<string, ValidateFunction>();

/**
 * A catalog route's input, checked against the route's JSON Schema from the catalog
 * (routeInputSchema): path, query and body merged into the operation's parameters, each where the
 * catalog says it travels, nothing else accepted. Query values arrive as text: a number, a boolean
 * or a list is read from it strictly (plain decimals, `true`/`false`, repeated keys), the rest is
 * left for the schema to refuse. Any problem is one 400 naming every field at fault.
 */
export function operationInput(op: OperationContract, request: RouteRequest): Record<string, unknown> {
  return checkedInput(op.http!, routeParams(op), request, validatorFor(op.name, () => routeInputSchema(op)));
}

/** The same for a route of an operation's `routes`; a raw body is the handler's to read. */
export function subRouteInput(name: string, route: SubRoute, request: RouteRequest): Record<string, unknown> {
  const validate = validatorFor(name, () => inputSchema(route.params, { limits: true }));
  return checkedInput(route, route.params, route.rawBody ? { params: request.params, query: request.query } : request, validate);
}

/**
 * A client stream's `svc-args`, checked against the stream's `args` in the catalog with the same
 * validator and the same 400 as a REST route's input: every field at fault named, nothing else accepted.
 */
export function streamArgsInput(name: string, route: SubRoute, args: Record<string, unknown>): Record<string, unknown> {
  const params = route.args ?? {};
  const validate = validatorFor(`stream:${name}`, () => inputSchema(params, { limits: true }));
  return checkedInput({ method: 'POST', path: '' }, params, { params: {}, query: {}, body: args }, validate);
}

/** The same for a route outside the catalog (ROUTE_INPUTS): its input in the query (GET) or the JSON body. */
export function plainRouteInput(name: RouteInputName, method: string, request: Omit<RouteRequest, 'params'>): Record<string, unknown> {
  const params: Record<string, ParamSpec> = ROUTE_INPUTS[name];
  const validate = validatorFor(`route:${name}`, () => inputSchema(params, { limits: true }));
  return checkedInput({ method: method as HttpMethod, path: '' }, params, { params: {}, query: request.query, body: request.body }, validate);
}

function checkedInput(http: Pick<HttpRoute, 'method' | 'path' | 'either'> & { rawBody?: RouteBody }, params: Record<string, ParamSpec>, request: RouteRequest, validate: ValidateFunction): Record<string, unknown> {
  const sendsBody = http.method !== 'GET' && http.method !== 'DELETE';
  const body = sendsBody ? (request.body ?? {}) : {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInputError('Request body must be a JSON object');
  const hidden = prototypeKeyPath(request.query) ?? prototypeKeyPath(body);
  if (hidden !== undefined) throw new InvalidInputError(`unknown field ${hidden}`);

  const input: Record<string, unknown> = {};
  const misplaced: string[] = [];
  const take = (where: 'path' | 'query' | 'body', values: Record<string, unknown>, read: (spec: ParamSpec | undefined, value: unknown) => unknown) => {
    for (const [name, value] of Object.entries(values)) {
      const spec: ParamSpec | undefined = params[name];
      if (spec !== undefined && paramLocation(http, name) !== where) misplaced.push(`unknown field ${name}`);
      else input[name] = read(spec, value);
    }
  };
  take('path', request.params, (_spec, value) => value);
  take('query', request.query, fromText);
  take('body', body as Record<string, unknown>, (_spec, value) => value);

  const problems = validate(input) ? [] : inputProblems(params, validate.errors ?? [], http.either);
  if (misplaced.length + problems.length > 0) throw new InvalidInputError(summarize([...misplaced, ...problems]));
  return input;
}

function validatorFor(name: string, schema: () => Record<string, unknown>): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) validators.set(name, (validate = ajv.compile(schema())));
  return validate;
}

const DECIMAL = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?$/;
/** A whole number in a query is plain decimal digits (`007` too); `5.0`, `1e3` and `+5` stay text and are refused. */
const DIGITS = /^[0-9]{1,15}$/;

function fromText(spec: ParamSpec | undefined, value: unknown): unknown {
  if (spec === undefined || typeof value !== 'string') return value;
  if (spec.type === 'number') return (spec.integer ? DIGITS : DECIMAL).test(value) ? Number(value) : value;
  if (spec.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (spec.type === 'string[]') return [value];
  return value;
}
