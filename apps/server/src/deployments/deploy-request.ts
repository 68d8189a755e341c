/**
 * Checks a DeployRequest body on arrival exactly as the CLI checks it before sending: the JSON
 * Schema of libs/common (ajv), then the rules a schema cannot state (deployRequestProblems). The
 * answer names the field (`jobs[0].steps[1].timeout`), never echoes file contents.
 */
import Ajv, { type ErrorObject } from 'ajv';
import { DEPLOY_REQUEST_SCHEMA, type DeployPath, type DeployRequest, deployRequestProblems, formatDeployPath, InvalidInputError } from '@svc/common';

const ajv = new Ajv({ strict: true, allErrors: false, verbose: true });
const validate = ajv.compile<DeployRequest>(DEPLOY_REQUEST_SCHEMA);

/** A value quoted in a message: short scalars as JSON, anything else by its kind. */
const SHOWN_CHARS = 60;

export function parseDeployRequest(body: unknown): DeployRequest {
  if (!validate(body)) throw new InvalidInputError(`Invalid deploy request: ${describe(mostTelling(validate.errors ?? []))}`);
  const [problem] = deployRequestProblems(body);
  if (problem) throw new InvalidInputError(`Invalid deploy request: ${formatDeployPath(problem.path)}: ${problem.message}`);
  return body;
}

function pathOf(error: ErrorObject): DeployPath {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

/** Ajv stops at the first failing keyword; an `if` or `propertyNames` failure is reported after its cause. */
function mostTelling(errors: ErrorObject[]): ErrorObject {
  const last = errors[errors.length - 1];
  if ((last.keyword === 'if' || last.keyword === 'propertyNames') && errors.length > 1) return errors[errors.length - 2];
  return last;
}

function describe(error: ErrorObject): string {
  const path = pathOf(error);
  const description: string | undefined = error.parentSchema?.description;
  const at = (where: DeployPath) => (where.length > 0 ? `${formatDeployPath(where)}: ` : '');
  if (error.propertyName !== undefined) return `${at([...path, error.propertyName])}"${shorten(error.propertyName)}" is not ${description ?? 'an allowed name'}`;
  switch (error.keyword) {
    case 'required':
      return `${at([...path, error.params.missingProperty])}required field missing`;
    case 'additionalProperties':
      return `${at([...path, error.params.additionalProperty])}unknown field`;
    case 'enum':
      return `${at(path)}${show(error.data)} is not one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'minItems':
    case 'minProperties':
      return `${at(path)}${description ? `must have ${description}` : (error.message ?? 'too few entries')}`;
    default:
      return `${at(path)}${description ? `${show(error.data)} is not ${description}` : (error.message ?? 'is not valid')}`;
  }
}

function show(value: unknown): string {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(shorten(value));
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : typeof value;
}

function shorten(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
