/** The server's schema check of a DeployRequest, compiled with Ajv (libs/common runspec/request-problem words its problems). */
import Ajv from 'ajv';
import { DEPLOY_REQUEST_SCHEMA, type DeployProblem } from '@svc/common';
import { DEPLOY_REQUEST_AJV_OPTIONS, firstRequestProblem as problemOf } from '@svc/common/runspec';

const ajv = new Ajv(DEPLOY_REQUEST_AJV_OPTIONS);
const validate = ajv.compile(DEPLOY_REQUEST_SCHEMA);

/** The first problem of `request`, in request paths (`['jobs', 0, ...]`), or undefined when it is valid. */
export function firstRequestProblem(request: unknown): DeployProblem | undefined {
  return problemOf(validate, request);
}
