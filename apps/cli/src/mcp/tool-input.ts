import { InvalidInputError, OperationContract, ParamSpec } from '@svc/common';
import { requireBatchTarget } from '../sdk/operation-runner';

/**
 * A tool call's arguments checked against the catalog before anything is sent: no unknown
 * parameter, every required one present, each of its declared type and allowed values, and a
 * [Batch] tool given `device` or `devices`. A model gets one message naming what to fix instead
 * of whatever a later layer would make of the value. `null` counts as not given: some clients
 * send it for an optional parameter they leave out.
 */
export function checkToolInput(op: OperationContract, args: unknown): Record<string, unknown> {
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new InvalidInputError(`${op.name} takes an object of named parameters`);
  }
  const given = Object.entries((args ?? {}) as Record<string, unknown>).filter(([, value]) => value !== null && value !== undefined);
  const params = op.params;
  const known = Object.keys(params);
  for (const [name] of given) {
    if (!(name in params)) throw new InvalidInputError(`${op.name} has no parameter ${name}; it takes ${known.length > 0 ? known.join(', ') : 'none'}`);
  }
  const input = Object.fromEntries(given);
  const missing = known.filter((name) => params[name].required && !(name in input));
  if (missing.length > 0) throw new InvalidInputError(`${op.name} needs ${missing.join(', ')}`);
  for (const [name, value] of given) checkValue(op.name, name, params[name], value);
  if (op.batch) requireBatchTarget(input);
  return input;
}

function checkValue(tool: string, name: string, spec: ParamSpec, value: unknown): void {
  const fits =
    spec.type === 'string[]'
      ? Array.isArray(value) && value.every((item) => typeof item === 'string')
      : spec.type === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === spec.type;
  if (!fits) throw new InvalidInputError(`${tool}: ${name} must be ${TYPE_WORDS[spec.type]}, not ${shown(value)}`);
  if (spec.enum && !spec.enum.includes(value as string)) throw new InvalidInputError(`${tool}: ${name} must be one of ${spec.enum.join(', ')}, not ${shown(value)}`);
}

const TYPE_WORDS: Record<ParamSpec['type'], string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  'string[]': 'an array of strings',
};

/** A wrong value echoed back, short: a model may have put a whole file where a number belongs. */
function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
