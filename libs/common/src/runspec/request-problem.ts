/**
 * Checks a normalized DeployRequest exactly as the server will (DEPLOY_REQUEST_SCHEMA, then
 * deployRequestProblems) and words the first problem for people: the field, what was wrong with
 * the value, and what was expected (describeSchemaError, in the words of YAML). The validator is
 * the caller's: the CLI compiles the schema with Ajv; the dashboard, whose Content-Security-Policy
 * refuses the `new Function` that compiling needs, carries the same validator compiled at build
 * time (Ajv's standalone code).
 */
import type { DeployRequest } from '../deployments/model';
import { type DeployProblem, deployRequestProblems } from '../deployments/request-checks';
import { describeSchemaError, mostTellingSchemaError, type SchemaError } from '../deployments/schema-errors';

/** DEPLOY_REQUEST_SCHEMA compiled (Ajv with `verbose: true`, so errors carry `data` and `parentSchema`). */
export interface DeployRequestValidator {
  (value: unknown): boolean;
  errors?: SchemaError[] | null;
}

/** How the schema is compiled, by the CLI at start and for the dashboard at build time: `verbose` for the words of the errors. */
export const DEPLOY_REQUEST_AJV_OPTIONS = { strict: true, allErrors: false, verbose: true } as const;

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
export function firstRequestProblem(validate: DeployRequestValidator, request: unknown): DeployProblem | undefined {
  if (!validate(request)) return describeSchemaError(mostTellingSchemaError(validate.errors ?? []), { typeNames: YAML_TYPE_NAMES });
  return deployRequestProblems(request as DeployRequest)[0];
}
