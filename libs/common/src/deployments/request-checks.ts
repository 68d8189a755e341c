/**
 * The rules of a DeployRequest that JSON Schema cannot state: unique job ids, unique step names
 * within a job's steps (and within its stop steps), and the byte sizes of inlined files. Run
 * after the schema (DEPLOY_REQUEST_SCHEMA) has passed; the CLI and the server both run it.
 */
import type { DeployRequest, Step } from './model';
import { DEPLOY_LIMITS } from './schema';

/** Where in the request: `['jobs', 1, 'steps', 0, 'timeout']`. */
export type DeployPath = (string | number)[];

export interface DeployProblem {
  path: DeployPath;
  message: string;
}

/** `['jobs', 1, 'steps', 0, 'timeout']` → `jobs[1].steps[0].timeout`; keys that are not identifiers are quoted. */
export function formatDeployPath(path: DeployPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** `path` is `['jobs', j, 'steps']` or `['jobs', j, 'stop', 'steps']`; messages name the other step within the job. */
function duplicateStepNames(steps: Step[], path: DeployPath): DeployProblem[] {
  const first = new Map<string, number>();
  const problems: DeployProblem[] = [];
  steps.forEach((step, index) => {
    const earlier = first.get(step.name);
    if (earlier === undefined) first.set(step.name, index);
    else problems.push({ path: [...path, index, 'name'], message: `duplicate step name "${step.name}" (also ${formatDeployPath([...path.slice(2), earlier])})` });
  });
  return problems;
}

export function deployRequestProblems(request: DeployRequest): DeployProblem[] {
  const problems: DeployProblem[] = [];
  const firstJob = new Map<string, number>();
  let totalBytes = 0;
  request.jobs.forEach((job, j) => {
    const earlier = firstJob.get(job.id);
    if (earlier === undefined) firstJob.set(job.id, j);
    else problems.push({ path: ['jobs', j, 'id'], message: `duplicate job id "${job.id}" (also jobs[${earlier}])` });
    problems.push(...duplicateStepNames(job.steps, ['jobs', j, 'steps']));
    problems.push(...duplicateStepNames(job.stop.steps, ['jobs', j, 'stop', 'steps']));
    for (const [name, content] of Object.entries(job.files)) {
      const bytes = Buffer.byteLength(content, 'utf8');
      totalBytes += bytes;
      if (bytes > DEPLOY_LIMITS.maxFileBytes) {
        problems.push({ path: ['jobs', j, 'files', name], message: `${bytes} bytes, more than the ${DEPLOY_LIMITS.maxFileBytes} bytes a file may have` });
      }
    }
  });
  if (totalBytes > DEPLOY_LIMITS.maxTotalFileBytes) {
    problems.push({ path: ['jobs'], message: `the files come to ${totalBytes} bytes, more than the ${DEPLOY_LIMITS.maxTotalFileBytes} bytes a deployment request may carry` });
  }
  return problems;
}
