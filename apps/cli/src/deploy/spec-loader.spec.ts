import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeployRequest, Job } from '@svc/common';
import { defaultJob, SpecDir } from '../../../../test/fixtures/deploy-specs';
import { loadDeploySpec, type LoadDeploySpecOptions } from './spec-loader';

let dir: SpecDir;
beforeEach(() => (dir = new SpecDir()));
afterEach(() => dir.remove());

const ALL_FIELDS = `
id: api
type: service
enabled: false
workdir: {kind: ephemeral, path: /srv/api}
files:
  app.py: ./src/app.py
  conf/settings.toml: {content: "debug = false\\n"}
env:
  PORT: 8080
  MODE: 010
  GREETING: hello world
steps:
  - name: deps
    run: [pip, install, -r, requirements.txt]
    timeout: 5m
    retry: {attempts: 3, backoff: 500ms, on_exit_codes: [1, 75]}
    undo: pip uninstall -y -r requirements.txt
  - name: serve
    run: python3 app.py
on_failure: {undo: executed_steps}
stop:
  steps:
    - {name: flush, run: [sync], timeout: 30s}
observe:
  logs: {follow: tail -F /var/log/api.log}
  liveness: {every: 5s, observe: [pgrep, -f, app.py], fails_after: 2}
  health: {every: 1m, observe: curl -fsS http://127.0.0.1:8080/health, fails_after: 5}
restart: {policy: on_failure, backoff: 2s, max_backoff: 10m}
`;

const ALL_FIELDS_JOB: Job = {
  id: 'api',
  type: 'service',
  enabled: false,
  workdir: { kind: 'ephemeral', path: '/srv/api' },
  files: { 'app.py': 'print("hi")\n', 'conf/settings.toml': 'debug = false\n' },
  env: { PORT: '8080', MODE: '010', GREETING: 'hello world' },
  steps: [
    {
      name: 'deps',
      run: ['pip', 'install', '-r', 'requirements.txt'],
      timeout: '5m',
      retry: { attempts: 3, backoff: '500ms', on_exit_codes: [1, 75] },
      undo: 'pip uninstall -y -r requirements.txt',
    },
    { name: 'serve', run: 'python3 app.py' },
  ],
  on_failure: { undo: 'executed_steps' },
  stop: { steps: [{ name: 'flush', run: ['sync'], timeout: '30s' }] },
  observe: {
    logs: { follow: 'tail -F /var/log/api.log' },
    liveness: { every: '5s', observe: ['pgrep', '-f', 'app.py'], fails_after: 2 },
    health: { every: '1m', observe: 'curl -fsS http://127.0.0.1:8080/health', fails_after: 5 },
  },
  restart: { policy: 'on_failure', backoff: '2s', max_backoff: '10m' },
  source: 'runspec',
};

const SERVE = 'steps: [{name: serve, run: python3 -m http.server 8080}]';

describe('loadDeploySpec: run-specs', () => {
  it('reads a job with every field, inlining files relative to the spec file', async () => {
    const file = dir.write({ 'spec/job.yaml': ALL_FIELDS, 'spec/src/app.py': 'print("hi")\n' });
    await expect(loadDeploySpec(file)).resolves.toEqual({ mode: 'merge', jobs: [ALL_FIELDS_JOB] });
  });

  it.each<[string, string, Partial<Job>]>([
    ['every default', `id: web\n${SERVE}`, {}],
    ['empty values as absent', `id: web\nenv:\nfiles:\nstop:\nobserve:\nrestart:\n${SERVE}`, {}],
    ['a one-shot job: restart never', `id: web\ntype: job\n${SERVE}`, { type: 'job', restart: { policy: 'never', backoff: '1s', max_backoff: '5m' } }],
    [
      'an observe job: probe defaults',
      'id: web\ntype: observe\nobserve: {liveness: {observe: "true"}}',
      { type: 'observe', steps: [], observe: { liveness: { every: '10s', observe: 'true', fails_after: 3 } }, restart: { policy: 'never', backoff: '1s', max_backoff: '5m' } },
    ],
    ['workdir ephemeral', `id: web\nworkdir: ephemeral\n${SERVE}`, { workdir: { kind: 'ephemeral' } }],
    ['workdir as a path', `id: web\nworkdir: /opt/web\n${SERVE}`, { workdir: { kind: 'persistent', path: '/opt/web' } }],
    ['workdir {path} only', `id: web\nworkdir: {path: /opt/web}\n${SERVE}`, { workdir: { kind: 'persistent', path: '/opt/web' } }],
    ['restart as a policy name', `id: web\nrestart: on_failure\n${SERVE}`, { restart: { policy: 'on_failure', backoff: '1s', max_backoff: '5m' } }],
    ['restart with only a backoff', `id: web\nrestart: {backoff: 10s}\n${SERVE}`, { restart: { policy: 'always', backoff: '10s', max_backoff: '5m' } }],
    [
      'retry without a backoff',
      'id: web\nsteps: [{name: s, run: x, retry: {attempts: 2}}]',
      { steps: [{ name: 's', run: 'x', retry: { attempts: 2, backoff: '1s' } }] },
    ],
    ['argv items as written', 'id: web\nsteps: [{name: s, run: [sleep, 1e3, true, 0x1F]}]', { steps: [{ name: 's', run: ['sleep', '1e3', 'true', '0x1F'] }] }],
    ['a literal file with a block scalar', `id: web\nfiles:\n  run.sh:\n    content: |\n      #!/bin/sh\n      exec app\n${SERVE}`, { files: { 'run.sh': '#!/bin/sh\nexec app\n' } }],
  ])('fills in %s', async (_, yaml, over) => {
    const file = dir.write({ 'job.yaml': yaml });
    const request = await loadDeploySpec(file);
    expect(request).toEqual({ mode: 'merge', jobs: [defaultJob(over)] });
  });

  it('follows YAML merge keys within a job', async () => {
    const yaml = `id: web\nobserve:\n  liveness: &probe {every: 3s, observe: "true"}\n  health: {<<: *probe, fails_after: 1}\n${SERVE}`;
    const request = await loadDeploySpec(dir.write({ 'job.yaml': yaml }));
    expect(request.jobs[0].observe).toEqual({
      liveness: { every: '3s', observe: 'true', fails_after: 3 },
      health: { every: '3s', observe: 'true', fails_after: 1 },
    });
  });

  it('names the job after the name option', async () => {
    const request = await loadDeploySpec(dir.write({ 'job.yaml': `id: web\n${SERVE}` }), { name: 'web-2', deployment_id: 'dep-1' });
    expect(request).toEqual({ deployment_id: 'dep-1', mode: 'merge', jobs: [defaultJob({ id: 'web-2' })] });
  });
});

const TWO_SERVICES = `name: edge v2
rollback:
  on_health_failure: {consecutive: 2}
  stabilization_period_secs: 120
jobs:
  - id: web
    ${SERVE}
  - id: worker
    steps: [{name: work, run: [./worker, --queue, jobs]}]
`;

describe('loadDeploySpec: deployment documents and detection', () => {
  const worker = defaultJob({ id: 'worker', steps: [{ name: 'work', run: ['./worker', '--queue', 'jobs'] }] });

  it.each<[string, string, LoadDeploySpecOptions, DeployRequest]>([
    [
      'a deployment document with rollback replaces the deployment',
      TWO_SERVICES,
      {},
      { mode: 'replace', jobs: [defaultJob(), worker], rollback: { on_health_failure: { consecutive: 2 }, stabilization_period_secs: 120 }, name: 'edge v2' },
    ],
    [
      'rollback defaults',
      `rollback: {}\njobs:\n  - id: web\n    ${SERVE}\n`,
      {},
      { mode: 'replace', jobs: [defaultJob()], rollback: { on_health_failure: 'any', stabilization_period_secs: 60 } },
    ],
    ['the name option names the deployment', TWO_SERVICES.replace(/rollback:\n.*\n.*\n/, ''), { name: 'Edge 3' }, { mode: 'replace', jobs: [defaultJob(), worker], name: 'Edge 3' }],
    ['an empty jobs list empties the deployment', 'jobs: []\n', { spec_type: 'deployment' }, { mode: 'replace', jobs: [] }],
    [
      'spec_type runspec merges a list of jobs',
      TWO_SERVICES.replace(/rollback:\n.*\n.*\n/, ''),
      { spec_type: 'runspec' },
      { mode: 'merge', jobs: [defaultJob(), worker], name: 'edge v2' },
    ],
  ])('%s', async (_, yaml, options, expected) => {
    await expect(loadDeploySpec(dir.write({ 'deploy.yaml': yaml }), options)).resolves.toEqual(expected);
  });

  it.each<[string, string, LoadDeploySpecOptions, 'merge' | 'replace', Job['source']]>([
    ['root services: compose', 'services: {web: {image: nginx}}\n', {}, 'merge', 'compose'],
    ['root jobs: deployment document', `jobs: [{id: web, ${SERVE}}]\n`, {}, 'replace', 'runspec'],
    ['anything else: one run-spec job', `id: web\n${SERVE}\n`, {}, 'merge', 'runspec'],
    ['spec_type compose is taken at its word', 'services: {web: {image: nginx}}\n', { spec_type: 'compose' }, 'merge', 'compose'],
    ['spec_type runspec with a root jobs: merges', `jobs: [{id: web, ${SERVE}}]\n`, { spec_type: 'runspec' }, 'merge', 'runspec'],
  ])('auto detection: %s', async (_, yaml, options, mode, source) => {
    const request = await loadDeploySpec(dir.write({ 'app/deploy.yaml': yaml }), options);
    expect(request.mode).toBe(mode);
    expect(request.jobs.map((j) => j.source)).toEqual([source]);
  });
});

describe('docs/runspec.md', () => {
  const doc = readFileSync(join(__dirname, '../../../../docs/runspec.md'), 'utf8');
  const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).filter((block) => !/: <\w/.test(block));

  it.each(blocks.map((block) => [block.split('\n')[0], block]))('example "%s" loads', async (_, block) => {
    const file = dir.write({ 'example.yaml': block, 'src/app.py': '', 'bin/worker': '', 'config/web.env': '' });
    await expect(loadDeploySpec(file)).resolves.toMatchObject({ jobs: expect.any(Array) });
  });

  it('has an example of each kind', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });
});
