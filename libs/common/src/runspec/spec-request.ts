/**
 * A deploy file (compose file, run-spec job or deployment document, docs/runspec.md) already
 * parsed → the normalized DeployRequest the server takes. Shared by `svc deploy` (which reads the
 * file and its references from disk) and the dashboard (which has only the text): what each of
 * them can do that the other cannot comes in through SpecHooks. Every problem is an
 * InvalidInputError naming the file, the line and the field.
 */
import { hasControlChars } from '../control-chars';
import type { DeployRequest, Job } from '../deployments/model';
import { type DeployPath, type DeployProblem, formatDeployPath } from '../deployments/request-checks';
import { DEPLOY_LIMITS, DEPLOYMENT_ID_PATTERN, JOB_ID_PATTERN } from '../deployments/schema';
import { showValue } from '../deployments/schema-errors';
import { InvalidInputError } from '../errors';
import { isPlain, type NormalizeContext, normalizeRunspecJob, refuseUnknown, RUNSPEC_DEFAULTS, withoutNulls } from './runspec-normalize';
import { SpecProblem } from './spec-problem';
import { refuseYamlWarnings, sourceError, writtenText, type YamlSource } from './yaml-source';

export const SPEC_TYPES = ['auto', 'compose', 'runspec', 'deployment'] as const;
export type SpecType = (typeof SPEC_TYPES)[number];

export interface DeploySpecOptions {
  spec_type?: SpecType;
  /** Compose file or single run-spec job: the job's id. Deployment document or list of jobs: the deployment's name. */
  name?: string;
  /** Absent: the device's active deployment (the server decides). */
  deployment_id?: string;
}

export interface SpecHooks {
  /** The content of a file the spec references (run-spec `files`), a path relative to the spec file. */
  readFile(reference: string, at: DeployPath): Promise<string>;
  /** A compose file → its job; absent where compose files are not taken. */
  compose?(source: YamlSource, root: Record<string, unknown>, options: DeploySpecOptions): Promise<Job>;
  /** The first problem of the finished request as the server would see it (its schema), in request paths. */
  requestProblem(request: DeployRequest): DeployProblem | undefined;
}

type Kind = 'compose' | 'job' | 'jobs' | 'deployment';

const DOCUMENT_FIELDS = ['name', 'jobs', 'rollback'];

/** What the file is: a root `services:` is compose, a root `jobs:` a deployment document, else one run-spec job. */
function kindOf(specType: SpecType, root: Record<string, unknown>): Kind {
  switch (specType) {
    case 'compose':
      return 'compose';
    case 'deployment':
      if (!('jobs' in root)) throw new SpecProblem(['jobs'], 'required field missing (a deployment document lists its jobs under jobs:)');
      return 'deployment';
    case 'runspec':
      return 'jobs' in root ? 'jobs' : 'job';
    default:
      if ('services' in root) return 'compose';
      return 'jobs' in root ? 'deployment' : 'job';
  }
}

function checkOptions(kind: Kind, options: DeploySpecOptions): void {
  const { name, deployment_id: deploymentId } = options;
  if (deploymentId !== undefined && !new RegExp(DEPLOYMENT_ID_PATTERN).test(deploymentId)) {
    throw new InvalidInputError(`deployment_id: ${showValue(deploymentId)} is not a deployment id`);
  }
  if (name === undefined) return;
  if (kind === 'compose' || kind === 'job') {
    if (!new RegExp(JOB_ID_PATTERN).test(name)) {
      throw new InvalidInputError(`name: ${showValue(name)} is not a job id (1-63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit); it names the job this file becomes`);
    }
  } else if (name === '' || name.length > DEPLOY_LIMITS.maxNameLength || hasControlChars(name)) {
    throw new InvalidInputError(`name: must be 1-${DEPLOY_LIMITS.maxNameLength} characters without control characters`);
  }
}

async function normalizeDocument(root: Record<string, unknown>, kind: 'deployment' | 'jobs', ctx: NormalizeContext) {
  refuseUnknown(root, DOCUMENT_FIELDS, [], 'a deployment document');
  const raw = withoutNulls(root, DOCUMENT_FIELDS);
  if (!Array.isArray(raw.jobs)) throw new SpecProblem(['jobs'], raw.jobs === undefined ? 'required field missing' : 'must be a list of jobs');
  if (raw.jobs.length > DEPLOY_LIMITS.maxJobs) throw new SpecProblem(['jobs'], `has ${raw.jobs.length} jobs, more than the ${DEPLOY_LIMITS.maxJobs} a deployment may have`);
  if (kind === 'jobs' && raw.rollback !== undefined) {
    throw new SpecProblem(['rollback'], 'only a whole deployment document sets the rollback policy: deploy this file with spec_type deployment (or auto)');
  }
  const jobs = [];
  for (const [i, job] of raw.jobs.entries()) jobs.push(await normalizeRunspecJob(job, ['jobs', i], ctx));
  const rollback = isPlain(raw.rollback) ? { ...RUNSPEC_DEFAULTS.rollback, ...withoutNulls(raw.rollback, ['on_health_failure', 'stabilization_period_secs']) } : raw.rollback;
  return { jobs, rollback, name: raw.name };
}

/** Where a problem of the request is in the user's file; `[]` with `prefix` for what has no place there. */
function locate(kind: Kind, problem: DeployProblem): { path: DeployPath; prefix: string } {
  if (kind === 'deployment' || kind === 'jobs') return { path: problem.path, prefix: '' };
  const inJob = problem.path[0] === 'jobs' ? problem.path.slice(2) : problem.path;
  if (kind === 'job') return { path: inJob, prefix: '' };
  return { path: [], prefix: inJob.length ? `the job's ${formatDeployPath(inJob)}: ` : '' };
}

async function buildRequest(source: YamlSource, kind: Kind, options: DeploySpecOptions, hooks: SpecHooks): Promise<DeployRequest> {
  const root = source.value as Record<string, unknown>;
  const base = options.deployment_id === undefined ? {} : { deployment_id: options.deployment_id };
  if (kind === 'compose') {
    if (!hooks.compose) throw new SpecProblem(['services'], 'a compose file: deploy it with `svc deploy`, which reads the files next to it');
    return { ...base, mode: 'merge', jobs: [await hooks.compose(source, root, options)] };
  }
  const ctx: NormalizeContext = { readFile: (reference, at) => hooks.readFile(reference, at), text: (at, value) => writtenText(source, at, value) };
  if (kind === 'job') {
    const job = await normalizeRunspecJob(root, [], ctx, options.name);
    return { ...base, mode: 'merge', jobs: [job] } as unknown as DeployRequest;
  }
  const document = await normalizeDocument(root, kind, ctx);
  const name = options.name ?? document.name;
  return {
    ...base,
    mode: kind === 'deployment' ? 'replace' : 'merge',
    jobs: document.jobs,
    ...(document.rollback === undefined ? {} : { rollback: document.rollback }),
    ...(name === undefined ? {} : { name }),
  } as unknown as DeployRequest;
}

/**
 * The DeployRequest `source` describes, normalized and checked (hooks.requestProblem). Throws
 * InvalidInputError (`file:line: field: problem`) for anything wrong.
 */
export async function deployRequestFromSource(source: YamlSource, options: DeploySpecOptions, hooks: SpecHooks): Promise<DeployRequest> {
  const root = source.value;
  if (!isPlain(root)) {
    throw new InvalidInputError(`${source.file}:1: must be a mapping (a compose file, a run-spec job or a deployment document), not ${root === null ? 'an empty document' : 'a list or a scalar'}`);
  }
  try {
    const kind = kindOf(options.spec_type ?? 'auto', root);
    checkOptions(kind, options);
    if (kind !== 'compose') refuseYamlWarnings(source);
    const request = await buildRequest(source, kind, options, hooks);
    const problem = hooks.requestProblem(request);
    if (problem) {
      const { path: at, prefix } = locate(kind, problem);
      throw new SpecProblem(at, prefix + problem.message);
    }
    return request;
  } catch (error) {
    if (error instanceof SpecProblem) throw sourceError(source, error.path, error.message);
    throw error;
  }
}
