/**
 * Checks a normalized DeployRequest exactly as the server will (DEPLOY_REQUEST_SCHEMA, then
 * deployRequestProblems) and words the first problem for people: the field, what was wrong with
 * the value, and what was expected.
 */
import Ajv, { type ErrorObject } from 'ajv';
import { DEPLOY_REQUEST_SCHEMA, type DeployPath, type DeployProblem, type DeployRequest, deployRequestProblems } from '@svc/common';
import { showValue } from './yaml-source';

const ajv = new Ajv({ strict: true, allErrors: false, verbose: true });
const validate = ajv.compile<DeployRequest>(DEPLOY_REQUEST_SCHEMA);

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
};

function pathOf(error: ErrorObject): DeployPath {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

/**
 * Ajv reports the failures of an `if/then` or `propertyNames` before the keyword itself, and stops
 * (allErrors off) at the first failing keyword: the most telling error is the last one, or the one
 * just before it for these two.
 */
function mostTelling(errors: ErrorObject[]): ErrorObject {
  const last = errors[errors.length - 1];
  if ((last.keyword === 'if' || last.keyword === 'propertyNames') && errors.length > 1) return errors[errors.length - 2];
  return last;
}

export function describeSchemaError(error: ErrorObject): DeployProblem {
  const path = pathOf(error);
  const description: string | undefined = error.parentSchema?.description;
  const shown = showValue(error.data);
  if (error.propertyName !== undefined) {
    return { path: [...path, error.propertyName], message: `"${error.propertyName}" is not ${description ?? 'an allowed name'}` };
  }
  switch (error.keyword) {
    case 'required':
      return { path: [...path, error.params.missingProperty], message: 'required field missing' };
    case 'additionalProperties': {
      const known = Object.keys(error.parentSchema?.properties ?? {});
      return { path: [...path, error.params.additionalProperty], message: `unknown field${known.length ? ` (expected one of: ${known.join(', ')})` : ''}` };
    }
    case 'type':
      return { path, message: description ? `${shown} is not ${description}` : `must be ${TYPE_NAMES[error.params.type] ?? error.params.type}, not ${shown}` };
    case 'enum':
      return { path, message: `${shown} is not one of ${(error.params.allowedValues as unknown[]).join(', ')}` };
    case 'anyOf':
      return { path, message: description ? `must be ${description}` : 'matches none of the allowed forms' };
    case 'minItems':
    case 'minProperties':
      return { path, message: description ? `must have ${description}` : (error.message ?? 'too few entries') };
    default:
      if (description) return { path, message: `${shown} is not ${description}` };
      return { path, message: `${error.message ?? 'is not valid'}${error.data === undefined || typeof error.data === 'object' ? '' : `, not ${shown}`}` };
  }
}

/** The first problem of `request`, in request paths (`['jobs', 0, ...]`), or undefined when it is valid. */
export function firstRequestProblem(request: unknown): DeployProblem | undefined {
  if (!validate(request)) return describeSchemaError(mostTelling(validate.errors ?? []));
  return deployRequestProblems(request)[0];
}
