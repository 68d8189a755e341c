/**
 * A compose file → one `service` job that drives `docker compose` (the v2 plugin) on the device,
 * the mapping users of the original system know: pull (retried), `up -d --remove-orphans` (undone
 * by `down`), stop step `down`, liveness and health from the containers' states, logs from
 * `compose logs -f`. The compose file travels unchanged as `compose.yaml`; docker compose, not
 * this code, interprets it. See docs/runspec.md, "Compose files".
 */
import * as path from 'node:path';
import { DEPLOY_LIMITS, type DeployPath, type Job, JOB_ID_PATTERN } from '@svc/common';
import { isPlain, RUNSPEC_DEFAULTS, SpecProblem } from '@svc/common/runspec';

const COMPOSE = 'docker compose -f compose.yaml';

/** One line per container: service, state, exit code, health (empty without a healthcheck). */
const PS = `${COMPOSE} ps -a --format '{{.Service}} {{.State}} {{.ExitCode}} {{.Health}}'`;

/**
 * Fails when no container exists (the project is down, or docker is unreachable: ps prints
 * nothing) or when any container is neither running nor a one-shot container that exited 0.
 * The awk rules are separated by `;`, as POSIX awk requires.
 */
const NOT_RUNNING = 'NF { n++ }; NF && $2 != "running" && !($2 == "exited" && $3 == "0") { bad++ }';
export const COMPOSE_LIVENESS = `${PS} | awk '${NOT_RUNNING}; END { exit (n == 0 || bad > 0) }'`;
/** Liveness, and no container whose healthcheck reports unhealthy or is still starting. */
export const COMPOSE_HEALTH = `${PS} | awk '${NOT_RUNNING}; $4 == "unhealthy" || $4 == "starting" { bad++ }; END { exit (n == 0 || bad > 0) }'`;

export const COMPOSE_COMMANDS = {
  pull: `${COMPOSE} pull`,
  up: `${COMPOSE} up -d --remove-orphans`,
  down: `${COMPOSE} down`,
  logs: `${COMPOSE} logs -f --no-color`,
} as const;

export interface ComposeInput {
  /** The compose file's text, sent as it is. */
  text: string;
  /** The compose file as YAML data. */
  value: Record<string, unknown>;
  /** The compose file's path on the caller's side. */
  filePath: string;
  /** The `name` option: the job id, as given. */
  name?: string;
  /** Reads a file the compose file references, relative to its directory. */
  readFile(reference: string, at: DeployPath): Promise<string>;
  /** Whether a file exists next to the compose file (for `.env`). */
  exists(reference: string): Promise<boolean>;
}

/** `My App!` → `my-app`: what docker compose would accept as a project name, and our job ids too. */
export function sanitizeJobId(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

function jobId(input: ComposeInput): string {
  if (input.name !== undefined) return input.name;
  const declared = input.value.name;
  if (typeof declared === 'string' && !declared.includes('$')) {
    const id = sanitizeJobId(declared);
    if (id) return id;
  }
  const id = sanitizeJobId(path.basename(path.dirname(path.resolve(input.filePath))));
  if (!id) throw new SpecProblem([], 'cannot derive a job id from the compose name or the directory name; give one with the name option');
  return id;
}

/** `./conf/app.env` → `conf/app.env`, the name the file gets next to compose.yaml on the device. */
function deviceName(reference: string, at: DeployPath): string {
  const name = path.posix.normalize(reference.replace(/\\/g, '/'));
  if (name.startsWith('../') || name.startsWith('/')) throw new SpecProblem(at, `"${reference}" is outside the compose file's directory; only files next to it or below are sent`);
  return name;
}

/** The env files of a service: `env_file: a.env`, `[a.env, b.env]` or `[{path, required}]`. */
function envFiles(value: unknown, at: DeployPath): { reference: string; required: boolean; at: DeployPath }[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, i) => {
    const itemAt = Array.isArray(value) ? [...at, i] : at;
    if (typeof item === 'string') return { reference: item, required: true, at: itemAt };
    if (isPlain(item) && typeof item.path === 'string') return { reference: item.path, required: item.required !== false, at: [...itemAt, 'path'] };
    throw new SpecProblem(itemAt, 'must be a file path or {path, required}');
  });
}

async function composeFiles(input: ComposeInput): Promise<Record<string, string>> {
  const files = new Map<string, string>([['compose.yaml', input.text]]);
  if (await input.exists('.env')) files.set('.env', await input.readFile('.env', []));
  for (const key of ['include', 'extends']) {
    if (key in input.value) throw new SpecProblem([key], 'references other compose files, which are not sent; put everything in one file');
  }
  const services = input.value.services as Record<string, unknown>;
  for (const [service, definition] of Object.entries(services)) {
    if (!isPlain(definition)) continue;
    const at: DeployPath = ['services', service];
    if (isPlain(definition.extends) && 'file' in definition.extends) {
      throw new SpecProblem([...at, 'extends', 'file'], 'references another compose file, which is not sent; put everything in one file');
    }
    if (definition.build !== undefined && definition.image === undefined) {
      throw new SpecProblem([...at, 'build'], 'the build context is not sent and images are not built on the device; push the image and name it with image:');
    }
    for (const file of envFiles(definition.env_file, [...at, 'env_file'])) {
      if (file.reference.includes('$')) throw new SpecProblem(file.at, `"${file.reference}" uses a variable; env_file paths must be literal to be sent`);
      const name = deviceName(file.reference, file.at);
      if (files.has(name)) continue;
      if (!file.required && !(await input.exists(file.reference))) continue;
      files.set(name, await input.readFile(file.reference, file.at));
    }
  }
  return Object.fromEntries(files);
}

export async function composeToJob(input: ComposeInput): Promise<Job> {
  if (!isPlain(input.value.services) || Object.keys(input.value.services).length === 0) {
    throw new SpecProblem(['services'], 'a compose file needs a mapping of services');
  }
  const bytes = Buffer.byteLength(input.text, 'utf8');
  if (bytes > DEPLOY_LIMITS.maxFileBytes) throw new SpecProblem([], `the compose file is ${bytes} bytes, more than the ${DEPLOY_LIMITS.maxFileBytes} bytes a file may have`);
  const id = jobId(input);
  if (!new RegExp(JOB_ID_PATTERN).test(id)) {
    throw new SpecProblem([], `the name "${id}" is not a job id (1-63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit)`);
  }
  return {
    id,
    type: 'service',
    enabled: true,
    workdir: { kind: 'persistent' },
    files: await composeFiles(input),
    // The project name docker compose uses on the device: the job id, whatever the directory is called there.
    env: { COMPOSE_PROJECT_NAME: id.replace(/\./g, '_') },
    steps: [
      { name: 'pull', run: COMPOSE_COMMANDS.pull, timeout: '10m', retry: { attempts: 3, backoff: '5s' } },
      { name: 'up', run: COMPOSE_COMMANDS.up, timeout: '5m', undo: COMPOSE_COMMANDS.down },
    ],
    on_failure: { undo: 'none' },
    stop: { steps: [{ name: 'down', run: COMPOSE_COMMANDS.down, timeout: '2m' }] },
    observe: {
      logs: { follow: COMPOSE_COMMANDS.logs },
      liveness: { every: RUNSPEC_DEFAULTS.probeEvery, observe: COMPOSE_LIVENESS, fails_after: RUNSPEC_DEFAULTS.probeFailsAfter },
      health: { every: RUNSPEC_DEFAULTS.probeEvery, observe: COMPOSE_HEALTH, fails_after: RUNSPEC_DEFAULTS.probeFailsAfter },
    },
    restart: { ...RUNSPEC_DEFAULTS.restart.service },
    source: 'compose',
  };
}
