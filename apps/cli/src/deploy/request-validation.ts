/**
 * Checks a normalized DeployRequest exactly as the server will (DEPLOY_REQUEST_SCHEMA, then
 * deployRequestProblems) and words the first problem for people: the field, what was wrong with
 * the value, and what was expected (libs/common describeSchemaError, in the words of YAML).
 */
import Ajv from 'ajv';
import { DEPLOY_REQUEST_SCHEMA, type DeployProblem, type DeployRequest, deployRequestProblems, describeSchemaError, mostTellingSchemaError } from '@svc/common';

const ajv = new Ajv({ strict: true, allErrors: false, verbose: true });
const validate = ajv.compile<DeployRequest>(DEPLOY_REQUEST_SCHEMA);

/** JSON types as a YAML author knows them: `enabled: must be true or false, not "yes"`. */
const YAML_TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
};

/** The first problem of `request`, in request paths (`['jobs', 0, ...]`), or undefined when it is valid. */
export function firstRequestProblem(request: unknown): DeployProblem | undefined {
  if (!validate(request)) return describeSchemaError(mostTellingSchemaError(validate.errors ?? []), { typeNames: YAML_TYPE_NAMES });
  return deployRequestProblems(request)[0];
}
