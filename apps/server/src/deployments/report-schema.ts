/**
 * What the server accepts from a runtime as a deployment status report. A device is not trusted:
 * a report must fit this schema (sizes bounded), fields the server does not know are dropped (a
 * newer runtime may add some, protocol v1 only adds), and control characters in its texts are
 * escaped, since other people's terminals show them.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import {
  escapeControls,
  DEPLOY_LIMITS,
  DEPLOYMENT_ID_PATTERN,
  DEPLOYMENT_STATES,
  DeploymentStatusReport,
  HEALTH_STATES,
  JOB_ID_PATTERN,
  JOB_STATES,
} from '@svc/common';

const TEXT = 2000;
const LOG_LINES = 200;
const LOG_LINE_CHARS = 4096;

const text = (maxLength: number) => ({ type: 'string', maxLength });
const nullableInteger = { anyOf: [{ type: 'integer' }, { type: 'null' }] };

const STEP_OUTCOME = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'status'],
  properties: {
    name: text(DEPLOY_LIMITS.maxNameLength),
    status: { type: 'string', enum: ['ok', 'failed', 'running', 'skipped', 'timed_out'] },
    exit_code: nullableInteger,
    attempts: { type: 'integer', minimum: 0 },
  },
};

const JOB_STATUS = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'health'],
  properties: {
    id: { type: 'string', pattern: JOB_ID_PATTERN },
    status: { type: 'string', enum: [...JOB_STATES] },
    health: { type: 'string', enum: [...HEALTH_STATES] },
    restarts: { type: 'integer', minimum: 0 },
    exit_code: nullableInteger,
    reason: text(TEXT),
    steps: { type: 'array', maxItems: DEPLOY_LIMITS.maxSteps * 2, items: STEP_OUTCOME },
    log_tail: { type: 'array', maxItems: LOG_LINES, items: text(LOG_LINE_CHARS) },
  },
};

const REPORT = {
  type: 'object',
  additionalProperties: false,
  required: ['deployment_id', 'status', 'jobs', 'reported_at'],
  properties: {
    deployment_id: { type: 'string', pattern: DEPLOYMENT_ID_PATTERN },
    status: { type: 'string', enum: [...DEPLOYMENT_STATES] },
    jobs: { type: 'array', maxItems: DEPLOY_LIMITS.maxJobs, items: JOB_STATUS },
    rollback: {
      type: 'object',
      additionalProperties: false,
      required: ['reason', 'to_deployment_id'],
      properties: { reason: text(TEXT), to_deployment_id: { anyOf: [{ type: 'string', pattern: DEPLOYMENT_ID_PATTERN }, { type: 'null' }] } },
    },
    reported_at: { type: 'string', maxLength: 40 },
  },
};

// removeAdditional drops unknown fields (in place) instead of refusing the report. Compiled at
// the first report, not at start-up (it was ~4 % of the server's start).
let validator: ValidateFunction<DeploymentStatusReport> | undefined;
const compiled = () => (validator ??= new Ajv({ strict: false, allErrors: false, removeAdditional: 'all' }).compile<DeploymentStatusReport>(REPORT));

/** The report as stored, or why it was dropped. */
export function checkReport(value: unknown): { report: DeploymentStatusReport } | { problem: string } {
  const validate = compiled();
  if (!validate(value)) {
    const [error] = validate.errors ?? [];
    return { problem: `${error?.instancePath || 'report'} ${error?.message ?? 'is invalid'}` };
  }
  if (Number.isNaN(Date.parse(value.reported_at))) return { problem: '/reported_at is not a date' };
  return { report: escapeTexts(value) };
}

function escapeTexts<T>(value: T): T {
  if (typeof value === 'string') return escapeControls(value) as T;
  if (Array.isArray(value)) return value.map(escapeTexts) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapeTexts(item)])) as T;
  return value;
}
