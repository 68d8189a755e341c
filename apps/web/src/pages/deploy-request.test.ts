import { describe, expect, it } from 'vitest';
import { deployRequestFromText } from './deploy-request';

/** A job as the normalization fills it in (docs/runspec.md, Defaults). */
const job = (over: Record<string, unknown>) => ({
  type: 'service',
  enabled: true,
  workdir: { kind: 'persistent' },
  files: {},
  env: {},
  steps: [],
  on_failure: { undo: 'none' },
  stop: { steps: [] },
  observe: {},
  restart: { policy: 'always', backoff: '1s', max_backoff: '5m' },
  source: 'runspec',
  ...over,
});

const refusal = (text: string, file?: string) => deployRequestFromText(text, file).then(
  () => 'accepted',
  (error: Error & { code?: string }) => `${error.code} ${error.message}`,
);

describe('deploy form: text → DeployRequest', () => {
  it('turns one run-spec job into a merge of that job, as svc deploy does', async () => {
    const text = 'id: api\nenv: {PORT: 010}\nsteps:\n  - name: serve\n    run: [python3, -m, http.server, 8080]\nrestart: on_failure\n';
    await expect(deployRequestFromText(text)).resolves.toEqual({
      mode: 'merge',
      jobs: [job({ id: 'api', env: { PORT: '010' }, steps: [{ name: 'serve', run: ['python3', '-m', 'http.server', '8080'] }], restart: { policy: 'on_failure', backoff: '1s', max_backoff: '5m' } })],
    });
  });

  it('turns a deployment document into a replace, with its name and rollback defaults', async () => {
    const text = 'name: shop\nrollback: {}\njobs:\n  - id: web\n    steps: [{name: serve, run: sleep 1}]\n';
    await expect(deployRequestFromText(text)).resolves.toEqual({
      mode: 'replace',
      name: 'shop',
      rollback: { on_health_failure: 'any', stabilization_period_secs: 60 },
      jobs: [job({ id: 'web', steps: [{ name: 'serve', run: 'sleep 1' }] })],
    });
  });

  it('sends a DeployRequest (a root mode:) as written, JSON or YAML', async () => {
    const request = { mode: 'merge', jobs: [job({ id: 'a' })], name: 'as is' };
    await expect(deployRequestFromText(JSON.stringify(request))).resolves.toEqual(request);
  });

  it.each([
    ['YAML syntax', 'id: a\nsteps:\n  - name: x\n    run: [echo, "open\n', /^INVALID_INPUT pasted text:5: Missing closing "quote/],
    ['an unknown job field', 'id: a\nstepz: []\n', 'INVALID_INPUT pasted text:2: stepz: unknown field (a job has: id, type, enabled, workdir, files, env, steps, on_failure, stop, observe, restart)'],
    ['the schema, at its line', 'id: a\nsteps:\n  - name: x\n    run: "true"\n    timeout: 10 minutes\n', 'INVALID_INPUT pasted text:5: steps[0].timeout: "10 minutes" is not a duration (Ns, Nm or Nh)'],
    ['a rule beyond the schema', 'id: a\nsteps:\n  - {name: x, run: "true"}\n  - {name: x, run: "false"}\n', /^INVALID_INPUT pasted text:4: steps\[1\]\.name: /],
    ['a file next to the spec', 'id: a\nfiles: {app.py: ./app.py}\nsteps: [{name: x, run: "true"}]\n', /^INVALID_INPUT deploy\.yaml:2: files\["app\.py"\]: "\.\/app\.py" is a file next to the spec, which a browser cannot read/],
    ['a compose file', 'services:\n  web: {image: nginx}\n', /^INVALID_INPUT deploy\.yaml:1: services: a compose file: deploy it with `svc deploy`/],
    ['nothing', '  \n', /^INVALID_INPUT pasted text: empty/],
    ['a list', '- a\n', 'INVALID_INPUT pasted text:1: must be a mapping (a compose file, a run-spec job or a deployment document), not a list or a scalar'],
  ])('refuses %s, naming the line and the field', async (_what, text, expected) => {
    const file = /files|services/.test(text) ? 'deploy.yaml' : undefined;
    const answer = await refusal(text, file);
    if (typeof expected === 'string') expect(answer).toBe(expected);
    else expect(answer).toMatch(expected);
  });

  it('counts a name in characters, as the server does (the compiled schema keeps its helpers)', async () => {
    const named = (name: string) => `name: ${JSON.stringify(name)}\njobs: [{id: a, steps: [{name: x, run: "true"}]}]\n`;
    await expect(deployRequestFromText(named('🙂'.repeat(128)))).resolves.toMatchObject({ name: '🙂'.repeat(128) });
    await expect(refusal(named('🙂'.repeat(129)))).resolves.toMatch(/^INVALID_INPUT pasted text:1: name: /);
  });
});
