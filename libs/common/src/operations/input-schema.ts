/**
 * An operation's parameters as JSON Schema, from its catalog entry: `svc mcp` lists the tool's
 * schema (type, allowed values, default: exactly tools.md), the server validates every request of
 * a catalog route against the route's schema (the same, plus the route's extras and the limits).
 */
import type { HttpRoute, OperationContract, ParamSpec } from './contract';

export interface InputSchemaOptions {
  /** The limits of each parameter (lengths, ranges, patterns): what the server enforces. */
  limits?: boolean;
  /** Whether a parameter carries its description (`svc mcp` leaves out the self-explaining ones). */
  describe?: (name: string) => boolean;
}

/** An environment variable's name: no `=`, no NUL (what execve takes). */
const ENV_NAME = '^[^=\\u0000]+$';

export function paramSchema(name: string, spec: ParamSpec, options: InputSchemaOptions = {}): Record<string, unknown> {
  const limited = options.limits === true;
  const pick = (...keys: (keyof ParamSpec)[]) => (limited ? Object.fromEntries(keys.filter((k) => spec[k] !== undefined).map((k) => [k, spec[k]])) : {});
  const stringLimits = pick('minLength', 'maxLength', 'pattern');
  const typed =
    spec.type === 'env'
      ? { type: 'object', propertyNames: { pattern: ENV_NAME }, additionalProperties: { type: 'string', ...stringLimits }, ...(limited && spec.maxItems !== undefined ? { maxProperties: spec.maxItems } : {}) }
      : spec.type === 'string[]'
      ? { type: 'array', items: { type: 'string', ...stringLimits }, ...pick('minItems', 'maxItems') }
      : spec.type === 'number'
        ? { type: limited && spec.integer ? 'integer' : 'number', ...pick('minimum', 'maximum', 'exclusiveMinimum') }
        : spec.type === 'string'
          ? { type: 'string', ...stringLimits }
          : { type: 'boolean' };
  return {
    ...typed,
    ...(options.describe === undefined || options.describe(name) ? { description: spec.description } : {}),
    ...(spec.enum ? { enum: [...spec.enum] } : {}),
    ...(spec.default !== undefined ? { default: spec.default } : {}),
  };
}

/**
 * An object of exactly these parameters: the required ones required, nothing else accepted. A
 * dotted name (`device_info.hostname`) is a field of a nested object, itself required and closed.
 */
export function inputSchema(params: Record<string, ParamSpec>, options: InputSchemaOptions = {}, either?: HttpRoute['either']): Record<string, unknown> {
  const nested = nestedGroups(params);
  if (nested.size > 0) {
    const flat = inputSchema(Object.fromEntries(Object.entries(params).filter(([name]) => !name.includes('.'))), options, either) as { properties: object; required?: string[] };
    const objects = Object.fromEntries([...nested].map(([parent, fields]) => [parent, inputSchema(fields, options)]));
    return { ...flat, properties: { ...flat.properties, ...objects }, required: [...(flat.required ?? []), ...nested.keys()] };
  }
  const entries = Object.entries(params);
  const required = entries.filter(([name, spec]) => spec.required && !either?.includes(name)).map(([name]) => name);
  return {
    type: 'object',
    properties: Object.fromEntries(entries.map(([name, spec]) => [name, paramSchema(name, spec, options)])),
    ...(required.length > 0 ? { required } : {}),
    ...(either ? { oneOf: either.map((name) => ({ required: [name] })) } : {}),
    additionalProperties: false,
  };
}

/** The dotted parameters by their parent object: `device_info.hostname` → device_info: {hostname}. */
function nestedGroups(params: Record<string, ParamSpec>): Map<string, Record<string, ParamSpec>> {
  const groups = new Map<string, Record<string, ParamSpec>>();
  for (const [name, spec] of Object.entries(params)) {
    const dot = name.indexOf('.');
    if (dot < 0) continue;
    const parent = name.slice(0, dot);
    groups.set(parent, { ...groups.get(parent), [name.slice(dot + 1)]: spec });
  }
  return groups;
}

/** What a route accepts: the operation's parameters and the route's extras, with their limits. */
export function routeInputSchema(op: OperationContract): Record<string, unknown> {
  if (!op.http) throw new Error(`${op.name} has no REST route`);
  return inputSchema(routeParams(op), { limits: true }, op.http.either);
}

export function routeParams(op: OperationContract): Record<string, ParamSpec> {
  return { ...op.params, ...op.http?.extra };
}

/** An ajv error, as far as inputProblems reads it. */
export interface InputSchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  /** The value at fault (ajv's `verbose`): echoed back, short, after a wrong type or value. */
  data?: unknown;
}

const TYPE_WORDS: Record<ParamSpec['type'], string> = { string: 'a string', number: 'a number', boolean: 'true or false', 'string[]': 'an array of strings', env: 'an object of variable names (no =) to strings' };

/**
 * A validation's errors as one line each, naming the parameter: `unknown field x`, `role must be
 * one of admin, editor, viewer`, or the parameter's own `rule`. One line per parameter, in order.
 */
export function inputProblems(params: Record<string, ParamSpec>, errors: readonly InputSchemaError[], either?: HttpRoute['either']): string[] {
  const lines = new Map<string, string>();
  const say = (key: string, line: string) => lines.has(key) || lines.set(key, line);
  const eitherFailed = either !== undefined && errors.some((e) => e.keyword === 'oneOf' && e.instancePath === '');
  for (const error of errors) {
    const segments = error.instancePath.split('/').slice(1);
    if (error.keyword === 'additionalProperties') {
      const key = [...segments, String(error.params.additionalProperty)].join('.');
      say(`+${key}`, `unknown field ${key}`);
      continue;
    }
    if (error.keyword === 'oneOf' || (eitherFailed && error.keyword === 'required' && either!.includes(String(error.params.missingProperty)))) {
      if (eitherFailed) say('either', `Give exactly one of ${either![0]} or ${either![1]}`);
      continue;
    }
    const field = segments.length > 1 && params[segments.slice(0, 2).join('.')] !== undefined ? segments.slice(0, 2) : segments.slice(0, 1);
    const name = error.keyword === 'required' ? [...segments, String(error.params.missingProperty)].join('.') : field.join('.');
    const spec = params[name];
    if (spec === undefined) {
      // A nested object itself (device_info): missing, or not an object.
      if (Object.keys(params).some((key) => key.startsWith(`${name}.`))) say(name, error.keyword === 'required' ? `${name} is required` : `${name} must be an object`);
      continue;
    }
    const wrong = 'data' in error && (error.keyword === 'type' || error.keyword === 'enum') ? `, not ${shown(error.data)}` : '';
    say(name, problem(name, spec, error, segments.length > field.length) + wrong);
  }
  return [...lines.values()];
}

function problem(name: string, spec: ParamSpec, error: InputSchemaError, item: boolean): string {
  if (spec.enum) return `${name} must be one of ${spec.enum.join(', ')}`;
  if (error.keyword === 'required') return `${name} is required`;
  if (error.keyword === 'pattern' && spec.patternProblem) return `${name} ${spec.patternProblem}`;
  if (spec.rule) return `${name} must be ${spec.rule}`;
  switch (error.keyword) {
    case 'minLength':
      return item ? `${name} must not hold an empty string` : `${name} must not be empty`;
    case 'maxLength':
      return `${item ? `each of ${name}` : name} must be at most ${String(error.params.limit)} characters long`;
    case 'minItems':
      return `${name} must not be empty`;
    case 'maxItems':
      return `${name} may name at most ${String(error.params.limit)} items`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
      return `${name} must be ${rangeWords(spec)}`;
    default:
      return `${name} must be ${TYPE_WORDS[spec.type]}`;
  }
}

/** A wrong value echoed back, short: a model may have put a whole file where a number belongs. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function rangeWords(spec: ParamSpec): string {
  const low = spec.exclusiveMinimum !== undefined ? `more than ${spec.exclusiveMinimum}` : spec.minimum !== undefined ? `at least ${spec.minimum}` : undefined;
  const high = spec.maximum !== undefined ? `at most ${spec.maximum}` : undefined;
  return [low, high].filter((part) => part !== undefined).join(' and ');
}
