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

export function paramSchema(name: string, spec: ParamSpec, options: InputSchemaOptions = {}): Record<string, unknown> {
  const limited = options.limits === true;
  const pick = (...keys: (keyof ParamSpec)[]) => (limited ? Object.fromEntries(keys.filter((k) => spec[k] !== undefined).map((k) => [k, spec[k]])) : {});
  const stringLimits = pick('minLength', 'maxLength', 'pattern');
  const typed =
    spec.type === 'string[]'
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

/** An object of exactly these parameters: the required ones required, nothing else accepted. */
export function inputSchema(params: Record<string, ParamSpec>, options: InputSchemaOptions = {}, either?: HttpRoute['either']): Record<string, unknown> {
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

const TYPE_WORDS: Record<ParamSpec['type'], string> = { string: 'a string', number: 'a number', boolean: 'true or false', 'string[]': 'an array of strings' };

/**
 * A validation's errors as one line each, naming the parameter: `unknown field x`, `role must be
 * one of admin, editor, viewer`, or the parameter's own `rule`. One line per parameter, in order.
 */
export function inputProblems(params: Record<string, ParamSpec>, errors: readonly InputSchemaError[], either?: HttpRoute['either']): string[] {
  const lines = new Map<string, string>();
  const say = (key: string, line: string) => lines.has(key) || lines.set(key, line);
  const eitherFailed = either !== undefined && errors.some((e) => e.keyword === 'oneOf' && e.instancePath === '');
  for (const error of errors) {
    if (error.keyword === 'additionalProperties') {
      const key = String(error.params.additionalProperty);
      say(`+${key}`, `unknown field ${key}`);
      continue;
    }
    if (error.keyword === 'oneOf' || (eitherFailed && error.keyword === 'required' && either!.includes(String(error.params.missingProperty)))) {
      if (eitherFailed) say('either', `Give exactly one of ${either![0]} or ${either![1]}`);
      continue;
    }
    const name = error.keyword === 'required' ? String(error.params.missingProperty) : error.instancePath.split('/')[1];
    const spec = params[name];
    if (spec === undefined) continue;
    const wrong = 'data' in error && (error.keyword === 'type' || error.keyword === 'enum') ? `, not ${shown(error.data)}` : '';
    say(name, problem(name, spec, error) + wrong);
  }
  return [...lines.values()];
}

function problem(name: string, spec: ParamSpec, error: InputSchemaError): string {
  if (spec.enum) return `${name} must be one of ${spec.enum.join(', ')}`;
  if (error.keyword === 'required') return `${name} is required`;
  if (spec.rule) return `${name} must be ${spec.rule}`;
  const item = error.instancePath.split('/').length > 2;
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
