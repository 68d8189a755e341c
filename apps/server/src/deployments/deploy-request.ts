/**
 * Checks a DeployRequest body on arrival exactly as the CLI checks it before sending: the JSON
 * Schema of libs/common (ajv), then the rules a schema cannot state (deployRequestProblems). The
 * answer names the field (`jobs[0].steps[1].timeout`), never echoes file contents; the wording of
 * schema failures is libs/common's describeSchemaError, shared with the CLI.
 */
import Ajv from 'ajv';
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

const ajv = new Ajv({ strict: true, allErrors: false, verbose: true });
const validate = ajv.compile<DeployRequest>(DEPLOY_REQUEST_SCHEMA);

export function parseDeployRequest(body: unknown): DeployRequest {
  if (!validate(body)) throw invalid(describeSchemaError(mostTellingSchemaError(validate.errors ?? [])));
  const [problem] = deployRequestProblems(body);
  if (problem) throw invalid(problem);
  return body;
}

/** `Invalid deploy request: jobs[0].id: "Web App" is not an id (...)`; a problem of the whole body has no path. */
function invalid({ path, message }: DeployProblem): InvalidInputError {
  return new InvalidInputError(`Invalid deploy request: ${path.length > 0 ? `${formatDeployPath(path)}: ` : ''}${message}`);
}
