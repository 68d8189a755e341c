/**
 * Run-spec (what people write, docs/runspec.md) → the normalized Job of @svc/common: shorthands
 * expanded, defaults filled in, referenced files read and inlined. Fields this code does not
 * recognise are passed through unchanged, so the schema names them at the place they were written.
 */
import { RESTART_POLICIES } from '../deployments/model';
import type { DeployPath } from '../deployments/request-checks';
import { DEPLOY_LIMITS } from '../deployments/schema';
import { SpecProblem } from './spec-problem';

type Plain = Record<string, unknown>;

export const RUNSPEC_DEFAULTS = {
  type: 'service',
  enabled: true,
  workdir: 'persistent',
  retryBackoff: '1s',
  probeEvery: '10s',
  probeFailsAfter: 3,
  /** Restart policy per job type; backoff doubles after each consecutive restart, up to max_backoff. */
  restart: {
    service: { policy: 'always', backoff: '1s', max_backoff: '5m' },
    job: { policy: 'never', backoff: '1s', max_backoff: '5m' },
    observe: { policy: 'never', backoff: '1s', max_backoff: '5m' },
  },
  rollback: { on_health_failure: 'any', stabilization_period_secs: 60 },
} as const;

export const JOB_FIELDS = ['id', 'type', 'enabled', 'workdir', 'files', 'env', 'steps', 'on_failure', 'stop', 'observe', 'restart'] as const;

export interface NormalizeContext {
  /** Reads a file the spec references (a path relative to the spec file), for `files`. */
  readFile(reference: string, at: DeployPath): Promise<string>;
  /** A scalar as the user wrote it (`010`, not 10), for argv items and env values. */
  text(at: DeployPath, value: unknown): unknown;
}

export const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy without the null values of `known` keys: `key:` with nothing is the same as no key. */
export function withoutNulls(value: Plain, known: readonly string[]): Plain {
  return Object.fromEntries(Object.entries(value).filter(([key, v]) => !(v === null && known.includes(key))));
}

export function refuseUnknown(value: Plain, known: readonly string[], path: DeployPath, what: string): void {
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  if (unknown !== undefined) throw new SpecProblem([...path, unknown], `unknown field (${what} has: ${known.join(', ')})`);
}

function command(value: unknown, path: DeployPath, ctx: NormalizeContext): unknown {
  return Array.isArray(value) ? value.map((item, i) => ctx.text([...path, i], item)) : value;
}

function workdir(value: unknown, path: DeployPath): unknown {
  if (value === undefined) return { kind: RUNSPEC_DEFAULTS.workdir };
  if (value === 'persistent' || value === 'ephemeral') return { kind: value };
  if (typeof value === 'string') {
    if (value.startsWith('/')) return { kind: RUNSPEC_DEFAULTS.workdir, path: value };
    throw new SpecProblem(path, `"${value}" is not a workdir (persistent, ephemeral, an absolute path, or {kind, path})`);
  }
  return isPlain(value) ? { kind: RUNSPEC_DEFAULTS.workdir, ...withoutNulls(value, ['kind', 'path']) } : value;
}

async function files(value: unknown, path: DeployPath, ctx: NormalizeContext): Promise<unknown> {
  if (value === undefined) return {};
  if (!isPlain(value)) return value;
  const count = Object.keys(value).length;
  if (count > DEPLOY_LIMITS.maxFilesPerJob) throw new SpecProblem(path, `has ${count} files, more than the ${DEPLOY_LIMITS.maxFilesPerJob} a job may have`);
  const entries: [string, string][] = [];
  for (const [name, spec] of Object.entries(value)) {
    const at = [...path, name];
    if (typeof spec === 'string') entries.push([name, await ctx.readFile(spec, at)]);
    else if (isPlain(spec) && Object.keys(spec).length === 1 && typeof spec.content === 'string') entries.push([name, spec.content]);
    else throw new SpecProblem(at, 'must be a path to a file (a string) or {content: "..."}');
  }
  return Object.fromEntries(entries);
}

function env(value: unknown, path: DeployPath, ctx: NormalizeContext): unknown {
  if (value === undefined) return {};
  if (!isPlain(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, ctx.text([...path, name], v)]));
}

const STEP_FIELDS = ['name', 'run', 'timeout', 'retry', 'undo'];

function step(value: unknown, path: DeployPath, ctx: NormalizeContext): unknown {
  if (!isPlain(value)) return value;
  const raw = withoutNulls(value, STEP_FIELDS);
  const out: Plain = { ...raw };
  if ('run' in raw) out.run = command(raw.run, [...path, 'run'], ctx);
  if ('undo' in raw) out.undo = command(raw.undo, [...path, 'undo'], ctx);
  if (isPlain(raw.retry)) out.retry = { backoff: RUNSPEC_DEFAULTS.retryBackoff, ...withoutNulls(raw.retry, ['attempts', 'backoff', 'on_exit_codes']) };
  return out;
}

function steps(value: unknown, path: DeployPath, ctx: NormalizeContext): unknown {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map((s, i) => step(s, [...path, i], ctx)) : value;
}

function probe(value: unknown, path: DeployPath, ctx: NormalizeContext): unknown {
  if (!isPlain(value)) return value;
  const raw = withoutNulls(value, ['every', 'observe', 'fails_after']);
  const out: Plain = { every: RUNSPEC_DEFAULTS.probeEvery, fails_after: RUNSPEC_DEFAULTS.probeFailsAfter, ...raw };
  if ('observe' in raw) out.observe = command(raw.observe, [...path, 'observe'], ctx);
  return out;
}

function observe(value: unknown, path: DeployPath, ctx: NormalizeContext): unknown {
  if (value === undefined) return {};
  if (!isPlain(value)) return value;
  const out = withoutNulls(value, ['logs', 'liveness', 'health']);
  if (isPlain(out.logs)) {
    const logs = withoutNulls(out.logs, ['follow']);
    out.logs = 'follow' in logs ? { ...logs, follow: command(logs.follow, [...path, 'logs', 'follow'], ctx) } : logs;
  }
  if ('liveness' in out) out.liveness = probe(out.liveness, [...path, 'liveness'], ctx);
  if ('health' in out) out.health = probe(out.health, [...path, 'health'], ctx);
  return out;
}

function restart(value: unknown, type: unknown, path: DeployPath): unknown {
  const defaults = RUNSPEC_DEFAULTS.restart[type as keyof typeof RUNSPEC_DEFAULTS.restart] ?? RUNSPEC_DEFAULTS.restart.service;
  if (value === undefined) return { ...defaults };
  if (typeof value === 'string') {
    if ((RESTART_POLICIES as readonly string[]).includes(value)) return { ...defaults, policy: value };
    throw new SpecProblem(path, `"${value}" is not a restart policy (never, on_failure, always, or {policy, backoff, max_backoff})`);
  }
  return isPlain(value) ? { ...defaults, ...withoutNulls(value, ['policy', 'backoff', 'max_backoff']) } : value;
}

/**
 * One run-spec job at `path` of the user's file. `id`, when given, replaces the job's own id
 * (the `name` option of a single-job file).
 */
export async function normalizeRunspecJob(value: unknown, path: DeployPath, ctx: NormalizeContext, id?: string): Promise<Plain> {
  if (!isPlain(value)) throw new SpecProblem(path, 'must be a mapping (a job)');
  refuseUnknown(value, JOB_FIELDS, path, 'a job');
  const raw = withoutNulls(value, JOB_FIELDS);
  const type = raw.type ?? RUNSPEC_DEFAULTS.type;
  const stop = raw.stop === undefined ? { steps: [] } : raw.stop;
  return {
    id: id ?? raw.id,
    type,
    enabled: raw.enabled ?? RUNSPEC_DEFAULTS.enabled,
    workdir: workdir(raw.workdir, [...path, 'workdir']),
    files: await files(raw.files, [...path, 'files'], ctx),
    env: env(raw.env, [...path, 'env'], ctx),
    steps: steps(raw.steps, [...path, 'steps'], ctx),
    on_failure: raw.on_failure === undefined ? { undo: 'none' } : isPlain(raw.on_failure) ? { undo: 'none', ...withoutNulls(raw.on_failure, ['undo']) } : raw.on_failure,
    stop: isPlain(stop) ? { ...stop, steps: steps(stop.steps ?? undefined, [...path, 'stop', 'steps'], ctx) } : stop,
    observe: observe(raw.observe, [...path, 'observe'], ctx),
    restart: restart(raw.restart, type, [...path, 'restart']),
    source: 'runspec',
  };
}
