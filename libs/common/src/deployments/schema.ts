/**
 * JSON Schema (draft-07) of the normalized Job and DeployRequest of model.ts: what the CLI and
 * `svc mcp` check before sending, and what the server checks on arrival (ajv). Plain objects, so
 * libs/common stays free of a schema library. What a schema cannot say (unique ids, byte sizes)
 * is in request-checks.ts; the server runs both.
 *
 * `description` texts are written to end error messages: `"10 minutes" is not a duration (...)`.
 */
import { DURATION_PATTERN } from './model';

const KIB = 1024;
const MIB = 1024 * KIB;

export const DEPLOY_LIMITS = {
  maxJobs: 64,
  maxSteps: 64,
  maxFilesPerJob: 256,
  /** UTF-8 bytes of one inlined file. */
  maxFileBytes: 1 * MIB,
  /** UTF-8 bytes of all inlined files of a request, across its jobs. */
  maxTotalFileBytes: 8 * MIB,
  /** A spec or compose file the caller reads. */
  maxSpecFileBytes: 8 * MIB,
  /** The JSON body of a DeployRequest; the server's deploy route must accept at least this. */
  maxRequestBytes: 16 * MIB,
  maxEnvVars: 256,
  maxEnvValueLength: 32 * KIB,
  maxCommandLength: 64 * KIB,
  maxArgs: 256,
  maxNameLength: 128,
  maxPathLength: 4096,
  maxFileNameLength: 255,
  maxRetryAttempts: 100,
  maxFailsAfter: 1000,
  maxStabilizationSecs: 86_400,
} as const;

export const JOB_ID_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,62}$';
/** Deployment ids are the server's (UUIDs today); the pattern only keeps them plain. */
export const DEPLOYMENT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$';
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** Free text shown in terminals: no C0/C1 controls, bidi controls or line separators (control-chars.ts). */
export const PLAIN_TEXT_PATTERN = '^[^\\p{Cc}\\p{Bidi_Control}\\u2028\\u2029]*$';
/** Relative, `/`-separated, no empty, `.` or `..` segments. */
export const FILE_NAME_PATTERN = '^(?!(?:.*/)?\\.\\.?(?:/|$))[A-Za-z0-9_.@+-]+(?:/[A-Za-z0-9_.@+-]+)*$';
/** Absolute, no `..` segments, no control characters. */
export const WORKDIR_PATH_PATTERN = '^/(?!(?:.*/)?\\.\\.(?:/|$))[^\\p{Cc}\\p{Bidi_Control}\\u2028\\u2029]*$';
const NO_NUL_PATTERN = '^[^\\u0000]*$';

const L = DEPLOY_LIMITS;

const ID = { type: 'string', pattern: JOB_ID_PATTERN, description: 'an id (1-63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit)' } as const;

const NAME = {
  type: 'string',
  minLength: 1,
  maxLength: L.maxNameLength,
  pattern: PLAIN_TEXT_PATTERN,
  description: `a name (1-${L.maxNameLength} characters, no control characters)`,
} as const;

const DURATION = { type: 'string', pattern: DURATION_PATTERN, description: 'a duration (Ns, Nm or Nh)' } as const;

const COMMAND = {
  description: 'a command: a string (run with sh -lc) or a non-empty list of strings (argv)',
  anyOf: [
    { type: 'string', minLength: 1, maxLength: L.maxCommandLength, pattern: NO_NUL_PATTERN },
    {
      type: 'array',
      minItems: 1,
      maxItems: L.maxArgs,
      items: { type: 'string', maxLength: L.maxCommandLength, pattern: NO_NUL_PATTERN },
    },
  ],
} as const;

const PROBE = {
  type: 'object',
  additionalProperties: false,
  required: ['every', 'observe', 'fails_after'],
  properties: {
    every: DURATION,
    observe: COMMAND,
    fails_after: { type: 'integer', minimum: 1, maximum: L.maxFailsAfter },
  },
} as const;

const RETRY = {
  type: 'object',
  additionalProperties: false,
  required: ['attempts', 'backoff'],
  properties: {
    attempts: { type: 'integer', minimum: 1, maximum: L.maxRetryAttempts },
    backoff: DURATION,
    on_exit_codes: { type: 'array', minItems: 1, maxItems: 255, uniqueItems: true, items: { type: 'integer', minimum: 1, maximum: 255 } },
  },
} as const;

const STEP = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'run'],
  properties: { name: NAME, run: COMMAND, timeout: DURATION, retry: RETRY, undo: COMMAND },
} as const;

const STEPS = { type: 'array', maxItems: L.maxSteps, items: STEP } as const;

/** The Job schema without `$schema`, for embedding. */
const JOB_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'enabled', 'workdir', 'files', 'env', 'steps', 'on_failure', 'stop', 'observe', 'restart', 'source'],
  properties: {
    id: ID,
    type: { type: 'string', enum: ['service', 'job', 'observe'] },
    enabled: { type: 'boolean' },
    workdir: {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: { type: 'string', enum: ['persistent', 'ephemeral'] },
        path: {
          type: 'string',
          maxLength: L.maxPathLength,
          pattern: WORKDIR_PATH_PATTERN,
          description: 'an absolute path without ".." segments or control characters',
        },
      },
    },
    files: {
      type: 'object',
      maxProperties: L.maxFilesPerJob,
      propertyNames: {
        maxLength: L.maxFileNameLength,
        pattern: FILE_NAME_PATTERN,
        description: 'a file name relative to the workdir (letters, digits, "_.@+-" and "/", no "." or ".." segments)',
      },
      additionalProperties: { type: 'string', maxLength: L.maxFileBytes },
    },
    env: {
      type: 'object',
      maxProperties: L.maxEnvVars,
      propertyNames: { maxLength: 128, pattern: ENV_NAME_PATTERN, description: 'an environment variable name ([A-Za-z_][A-Za-z0-9_]*)' },
      additionalProperties: { type: 'string', maxLength: L.maxEnvValueLength, pattern: NO_NUL_PATTERN, description: 'a string (without NUL characters)' },
    },
    steps: STEPS,
    on_failure: {
      type: 'object',
      additionalProperties: false,
      required: ['undo'],
      properties: { undo: { type: 'string', enum: ['none', 'executed_steps'] } },
    },
    stop: { type: 'object', additionalProperties: false, required: ['steps'], properties: { steps: STEPS } },
    observe: {
      type: 'object',
      additionalProperties: false,
      properties: {
        logs: { type: 'object', additionalProperties: false, required: ['follow'], properties: { follow: COMMAND } },
        liveness: PROBE,
        health: PROBE,
      },
    },
    restart: {
      type: 'object',
      additionalProperties: false,
      required: ['policy', 'backoff', 'max_backoff'],
      properties: {
        policy: { type: 'string', enum: ['never', 'on_failure', 'always'] },
        backoff: DURATION,
        max_backoff: DURATION,
      },
    },
    source: { type: 'string', enum: ['runspec', 'compose'] },
  },
  allOf: [
    {
      if: { properties: { type: { enum: ['service', 'job'] } } },
      then: { properties: { steps: { type: 'array', minItems: 1, description: 'at least one step (a service or job runs its steps)' } } },
    },
    {
      if: { properties: { type: { const: 'observe' } } },
      then: { properties: { observe: { type: 'object', minProperties: 1, description: 'at least one of logs, liveness or health (an observe job only observes)' } } },
    },
  ],
} as const;

export const JOB_SCHEMA = { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'svc:deployments/job', ...JOB_BODY } as const;

const ROLLBACK = {
  type: 'object',
  additionalProperties: false,
  required: ['on_health_failure', 'stabilization_period_secs'],
  properties: {
    on_health_failure: {
      description: 'never, any, all or {consecutive: N}',
      anyOf: [
        { type: 'string', enum: ['never', 'any', 'all'] },
        {
          type: 'object',
          additionalProperties: false,
          required: ['consecutive'],
          properties: { consecutive: { type: 'integer', minimum: 1, maximum: L.maxFailsAfter } },
        },
      ],
    },
    stabilization_period_secs: { type: 'integer', minimum: 1, maximum: L.maxStabilizationSecs },
  },
} as const;

export const DEPLOY_REQUEST_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'svc:deployments/deploy-request',
  type: 'object',
  additionalProperties: false,
  required: ['mode', 'jobs'],
  properties: {
    deployment_id: { type: 'string', pattern: DEPLOYMENT_ID_PATTERN, description: 'a deployment id' },
    mode: { type: 'string', enum: ['merge', 'replace'] },
    jobs: { type: 'array', maxItems: L.maxJobs, items: JOB_BODY },
    rollback: ROLLBACK,
    name: NAME,
  },
  allOf: [{ if: { properties: { mode: { const: 'merge' } } }, then: { properties: { jobs: { type: 'array', minItems: 1, description: 'at least one job' } } } }],
} as const;
