import Ajv, { ValidateFunction } from 'ajv';
import { InvalidInputError, inputProblems, inputSchema, OperationContract } from '@svc/common';
import { requireBatchTarget } from '../sdk/operation-runner';

const ajv = new Ajv({ allErrors: false, verbose: true, strict: true });
const validators = new Map<string, ValidateFunction>();

/**
 * A tool call's arguments checked against the catalog before anything is sent: no unknown
 * parameter, every required one present, then the operation's JSON Schema (inputSchema, with the
 * limits the server enforces) and a [Batch] tool given `device` or `devices`. A model gets one
 * message naming what to fix instead of whatever a later layer would make of the value. `null`
 * counts as not given: some clients send it for an optional parameter they leave out.
 */
export function checkToolInput(op: OperationContract, args: unknown): Record<string, unknown> {
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new InvalidInputError(`${op.name} takes an object of named parameters`);
  }
  const given = Object.entries((args ?? {}) as Record<string, unknown>).filter(([, value]) => value !== null && value !== undefined);
  const params = op.params;
  const known = Object.keys(params);
  for (const [name] of given) {
    if (!Object.hasOwn(params, name)) throw new InvalidInputError(`${op.name} has no parameter ${name}; it takes ${known.length > 0 ? known.join(', ') : 'none'}`);
  }
  const input = Object.fromEntries(given);
  const missing = known.filter((name) => params[name].required && !(name in input));
  if (missing.length > 0) throw new InvalidInputError(`${op.name} needs ${missing.join(', ')}`);
  const validate = validatorFor(op);
  if (!validate(input)) throw new InvalidInputError(`${op.name}: ${inputProblems(params, validate.errors ?? []).join('; ')}`);
  if (op.batch) requireBatchTarget(input);
  return input;
}

function validatorFor(op: OperationContract): ValidateFunction {
  let validate = validators.get(op.name);
  if (!validate) validators.set(op.name, (validate = ajv.compile(inputSchema(op.params, { limits: true }))));
  return validate;
}
