/** The catalog's deployment operations (docs/deployments.md). */
import { answer, BATCH_TARGET, bool, defineOperation, num, optStr, route, str, subRoute } from './contract';
import { DEPLOY_BODY, device, JOB_ID, JOB_LOGS_DEFAULT_TAIL, JOB_LOGS_MAX_TAIL, ON_DEVICE } from './route-params';
import { deploymentSchema, deploymentStatusSchema, deploymentSummarySchema } from './result-schemas';
import { array, batched, object, oneOf, status, string } from './schema-builders';
import { DEPLOYMENT_ID_PATTERN } from '../deployments/schema';

const DEPLOYMENT_ID = { pattern: DEPLOYMENT_ID_PATTERN, rule: 'a deployment id (1-128 of A-Z a-z 0-9 _ . -)' } as const;
const deploymentId = (description: string) => str(description, DEPLOYMENT_ID);
const activeDeploymentId = optStr('deployment id (active when omitted)', DEPLOYMENT_ID);
const deployed = object({ status: oneOf('deployed'), deployment_id: string });

export const DEPLOYMENT_OPERATIONS = [
  defineOperation({
    name: 'device_deploy',
    summary: 'Deploy a compose file or run spec',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: {
      device,
      file: str('path to a compose file or run-spec YAML'),
      spec_type: optStr('spec type', { default: 'auto', enum: ['auto', 'compose', 'runspec', 'deployment'] }),
      name: optStr('display name'),
      deployment_id: optStr('deployment id (active when omitted)'),
    },
    result: deployed,
    routes: {
      /** The body is a DeployRequest built from `file` on the caller's side (docs/runspec.md, DEPLOY_REQUEST_SCHEMA), read after authorization with its own size limit. */
      jobs: subRoute('POST', '/devices/{device}/deployments/jobs', 'device:deploy', { device }, { rawBody: DEPLOY_BODY, answer: answer(deployed) }),
      /** A job's log from the device as text (it may hold what the job prints of its secrets, so it needs what deploying needs), streamed while `follow` holds it open. */
      job_logs: subRoute('GET', '/devices/{device}/deployments/jobs/{job_id}/logs', 'device:deploy', {
        device,
        job_id: str('job id', JOB_ID),
        follow: bool('keep the answer open and stream new lines', false),
        tail: num('start with the last N lines', JOB_LOGS_DEFAULT_TAIL, { integer: true, minimum: 0, maximum: JOB_LOGS_MAX_TAIL, rule: `a number of lines (0-${JOB_LOGS_MAX_TAIL})` }),
      }, { answer: answer({ type: 'string', description: 'log lines, newline-terminated' }, 'text/plain'), errors: ON_DEVICE }),
    },
  }),
  defineOperation({
    name: 'device_undeploy',
    http: route('DELETE', '/devices/{device}/deployments/jobs/{job_id}'),
    summary: 'Remove a job from a deployment',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: { device, job_id: str('job id', JOB_ID), deployment_id: activeDeploymentId },
    result: status('undeployed'),
  }),
  defineOperation({
    name: 'device_deployment_list',
    http: route('POST', '/devices/deployments/list'),
    summary: 'List deployments',
    batch: true,
    readOnly: true,
    capability: 'device:view',
    params: { ...BATCH_TARGET },
    result: batched(object({ deployments: array(deploymentSummarySchema) })),
  }),
  defineOperation({ name: 'device_deployment_new', http: route('POST', '/devices/{device}/deployments'), summary: 'Create a deployment', batch: false, readOnly: false, capability: 'device:deploy', params: { device, active: bool('make it active', false) }, result: deploymentSchema }),
  defineOperation({ name: 'device_deployment_show', http: route('GET', '/devices/{device}/deployment'), summary: 'Show a deployment', batch: false, readOnly: true, capability: 'device:view', params: { device, deployment_id: activeDeploymentId }, result: deploymentSchema }),
  defineOperation({
    name: 'device_deployment_rm',
    http: route('DELETE', '/devices/{device}/deployments/{deployment_id}'),
    summary: 'Remove a deployment',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: { device, deployment_id: deploymentId('deployment id') },
    result: status('removed'),
  }),
  defineOperation({
    name: 'device_deployment_active',
    http: route('GET', '/devices/{device}/deployments/active'),
    summary: 'Show the active deployment id',
    batch: false,
    readOnly: true,
    capability: 'device:view',
    params: { device },
    result: object({ active_deployment_id: string }),
  }),
  defineOperation({
    name: 'device_deployment_activate',
    http: route('POST', '/devices/{device}/deployments/{deployment_id}/activate'),
    summary: 'Activate a deployment',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: { device, deployment_id: deploymentId('deployment id') },
    result: status('activated'),
  }),
  defineOperation({
    name: 'device_deployment_status',
    http: route('POST', '/devices/deployments/status'),
    summary: 'Status of a deployment and its jobs',
    batch: true,
    readOnly: true,
    capability: 'device:view',
    params: { ...BATCH_TARGET, deployment_id: activeDeploymentId },
    result: batched(deploymentStatusSchema),
  }),
  defineOperation({
    name: 'device_deployment_clone',
    http: route('POST', '/devices/{device}/deployments/{deployment_id}/clone'),
    summary: 'Clone a deployment',
    batch: false,
    readOnly: false,
    capability: 'device:deploy',
    params: { device, deployment_id: deploymentId('source deployment id'), active: bool('make it active', false) },
    result: deploymentSchema,
  }),
] as const;
