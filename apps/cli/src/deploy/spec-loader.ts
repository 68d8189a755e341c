/**
 * `device_deploy` on the caller's side: reads a compose file, a run-spec or a deployment document,
 * inlines the files it references and answers the normalized DeployRequest the server takes. Every
 * problem is an InvalidInputError naming the file, the line and the field. Format: docs/runspec.md.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  DEPLOY_LIMITS,
  DEPLOYMENT_ID_PATTERN,
  type DeployPath,
  type DeployProblem,
  type DeployRequest,
  formatDeployPath,
  hasControlChars,
  InvalidInputError,
  JOB_ID_PATTERN,
  showValue,
} from '@svc/common';
import { composeToJob } from './compose-mapping';
import { ReferencedFileError, readReferencedFile } from './referenced-files';
import { firstRequestProblem } from './request-validation';
import { isPlain, type NormalizeContext, normalizeRunspecJob, refuseUnknown, RUNSPEC_DEFAULTS, withoutNulls } from './runspec-normalize';
import { SpecProblem } from './spec-problem';
import { parseYamlSource, refuseYamlWarnings, sourceError, writtenText, type YamlSource } from './yaml-source';

export const SPEC_TYPES = ['auto', 'compose', 'runspec', 'deployment'] as const;
export type SpecType = (typeof SPEC_TYPES)[number];

export interface LoadDeploySpecOptions {
  spec_type?: SpecType;
  /** Compose file or single run-spec job: the job's id. Deployment document or list of jobs: the deployment's name. */
  name?: string;
  /** Absent: the device's active deployment (the server decides). */
  deployment_id?: string;
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

function checkOptions(kind: Kind, options: LoadDeploySpecOptions): void {
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

async function readSpecFile(filePath: string): Promise<string> {
  let stat;
  try {
    stat = await fs.stat(filePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`${filePath}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (!stat.isFile()) throw new InvalidInputError(`${filePath}: not a regular file`);
  if (stat.size > DEPLOY_LIMITS.maxSpecFileBytes) {
    throw new InvalidInputError(`${filePath}: ${stat.size} bytes, more than the ${DEPLOY_LIMITS.maxSpecFileBytes} bytes a spec file may have`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await fs.readFile(filePath));
  } catch {
    throw new InvalidInputError(`${filePath}: not UTF-8 text`);
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

async function buildRequest(source: YamlSource, kind: Kind, filePath: string, options: LoadDeploySpecOptions): Promise<DeployRequest> {
  const root = source.value as Record<string, unknown>;
  const baseDir = path.dirname(path.resolve(filePath));
  let fileBytes = 0;
  const readFile = async (reference: unknown, at: DeployPath): Promise<string> => {
    if (typeof reference !== 'string') throw new SpecProblem(at, 'must be a file path');
    try {
      const content = await readReferencedFile(baseDir, reference);
      fileBytes += Buffer.byteLength(content, 'utf8');
      if (fileBytes > DEPLOY_LIMITS.maxTotalFileBytes) {
        throw new SpecProblem(at, `the files referenced so far come to ${fileBytes} bytes, more than the ${DEPLOY_LIMITS.maxTotalFileBytes} bytes a deployment request may carry`);
      }
      return content;
    } catch (error) {
      if (error instanceof ReferencedFileError) throw new SpecProblem(at, error.message);
      throw error;
    }
  };
  const ctx: NormalizeContext = { readFile, text: (at, value) => writtenText(source, at, value) };
  const base = options.deployment_id === undefined ? {} : { deployment_id: options.deployment_id };

  if (kind === 'compose') {
    const exists = (reference: string) =>
      fs.stat(path.resolve(baseDir, reference)).then(
        () => true,
        () => false,
      );
    const job = await composeToJob({ text: source.text, value: root, filePath, name: options.name, readFile, exists });
    return { ...base, mode: 'merge', jobs: [job] };
  }
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
 * Reads `filePath` and answers the DeployRequest it describes, normalized and validated as the
 * server validates it. Throws InvalidInputError (`file:line: field: problem`) for anything wrong.
 */
export async function loadDeploySpec(filePath: string, options: LoadDeploySpecOptions = {}): Promise<DeployRequest> {
  const specType = options.spec_type ?? 'auto';
  if (!(SPEC_TYPES as readonly string[]).includes(specType)) throw new InvalidInputError(`spec_type: ${showValue(specType)} is not one of ${SPEC_TYPES.join(', ')}`);
  const source = parseYamlSource(filePath, await readSpecFile(filePath));
  const root = source.value;
  if (!isPlain(root)) {
    throw new InvalidInputError(`${filePath}:1: must be a mapping (a compose file, a run-spec job or a deployment document), not ${root === null ? 'an empty document' : 'a list or a scalar'}`);
  }
  try {
    const kind = kindOf(specType, root);
    checkOptions(kind, options);
    if (kind !== 'compose') refuseYamlWarnings(source);
    const request = await buildRequest(source, kind, filePath, options);
    const problem = firstRequestProblem(request);
    if (problem) {
      const { path: at, prefix } = locate(kind, problem);
      throw new SpecProblem(at, prefix + problem.message);
    }
    const bytes = Buffer.byteLength(JSON.stringify(request), 'utf8');
    if (bytes > DEPLOY_LIMITS.maxRequestBytes) {
      throw new InvalidInputError(`${filePath}: the request would be ${bytes} bytes, more than the ${DEPLOY_LIMITS.maxRequestBytes} bytes the server takes`);
    }
    return request;
  } catch (error) {
    if (error instanceof SpecProblem) throw sourceError(source, error.path, error.message);
    throw error;
  }
}
