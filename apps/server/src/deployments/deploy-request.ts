/**
 * Checks a DeployRequest body on arrival exactly as the CLI checks it before sending: the JSON
 * Schema of libs/common (ajv), then the rules a schema cannot state (deployRequestProblems). The
 * answer names the field (`jobs[0].steps[1].timeout`), never echoes file contents; the wording of
 * schema failures is libs/common's describeSchemaError, shared with the CLI.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import {
  DEPLOY_REQUEST_SCHEMA,
  type DeployProblem,
  type DeployRequest,
  deployRequestProblems,
  describeSchemaError,
  formatDeployPath,
  InvalidInputError,
  mostTellingSchemaError,
} from '@svc/common';

/** Compiled at the first deploy request, not at start-up (it was ~3 % of the server's start). */
let validator: ValidateFunction<DeployRequest> | undefined;
const compiled = () => (validator ??= new Ajv({ strict: true, allErrors: false, verbose: true }).compile<DeployRequest>(DEPLOY_REQUEST_SCHEMA));

export function parseDeployRequest(body: unknown): DeployRequest {
  const validate = compiled();
  if (!validate(body)) throw invalid(describeSchemaError(mostTellingSchemaError(validate.errors ?? [])));
  const [problem] = deployRequestProblems(body);
  if (problem) throw invalid(problem);
  return body;
}

/** `Invalid deploy request: jobs[0].id: "Web App" is not an id (...)`; a problem of the whole body has no path. */
function invalid({ path, message }: DeployProblem): InvalidInputError {
  return new InvalidInputError(`Invalid deploy request: ${path.length > 0 ? `${formatDeployPath(path)}: ` : ''}${message}`);
}
