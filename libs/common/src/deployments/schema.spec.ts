import Ajv from 'ajv';
import { defaultJob } from '../../../../test/fixtures/deploy-specs';
import { CONTROL_CHARS } from '../control-chars';
import type { DeployRequest, Job } from './model';
import { deployRequestProblems, formatDeployPath } from './request-checks';
import { DEPLOY_LIMITS, DEPLOY_REQUEST_SCHEMA, JOB_SCHEMA, PLAIN_TEXT_PATTERN } from './schema';

const ajv = new Ajv({ strict: true });
const validateRequest = ajv.compile(DEPLOY_REQUEST_SCHEMA);
const validateJob = ajv.compile(JOB_SCHEMA);

const job = (over: Partial<Job> = {}): Job => defaultJob(over);

const request = (jobs: Job[], over: Partial<DeployRequest> = {}): DeployRequest => ({ mode: 'merge', jobs, ...over });

describe('DEPLOY_REQUEST_SCHEMA', () => {
  it.each<[string, unknown]>([
    ['a minimal service job', request([job()])],
    [
      'every field',
      request(
        [
          job({
            workdir: { kind: 'ephemeral', path: '/srv/web' },
            files: { 'app.py': 'print(1)\n', 'conf/nginx.conf': 'x' },
            env: { PORT: '8080', _X: '' },
            steps: [
              { name: 'fetch', run: ['curl', '-fsS', 'https://example.com'], timeout: '30s', retry: { attempts: 3, backoff: '500ms', on_exit_codes: [6, 7] }, undo: 'rm -f x' },
              { name: 'serve', run: 'python3 app.py' },
            ],
            on_failure: { undo: 'executed_steps' },
            stop: { steps: [{ name: 'flush', run: 'sync', timeout: '1m' }] },
            observe: {
              logs: { follow: 'tail -F log' },
              liveness: { every: '10s', observe: 'true', fails_after: 3 },
              health: { every: '1h', observe: ['curl', '-f', 'http://localhost:8080/'], fails_after: 1 },
            },
            restart: { policy: 'on_failure', backoff: '2s', max_backoff: '10m' },
          }),
        ],
        { mode: 'replace', deployment_id: 'b9e8c6a2-1c1d-4c53-9d0a-1f0e7b1a2c3d', name: 'Edge v2', rollback: { on_health_failure: { consecutive: 2 }, stabilization_period_secs: 60 } },
      ),
    ],
    ['replace with no jobs (empties the deployment)', request([], { mode: 'replace' })],
    ['an observe job with only a probe', request([job({ type: 'observe', steps: [], observe: { liveness: { every: '5s', observe: 'true', fails_after: 3 } } })])],
  ])('accepts %s', (_, body) => {
    expect(validateRequest(body)).toBe(true);
  });

  it.each<[string, unknown, string]>([
    ['an unknown field', { ...request([job()]), force: true }, 'additionalProperties'],
    ['merge with no jobs', request([]), 'minItems'],
    ['an upper-case job id', request([job({ id: 'Web' })]), 'pattern'],
    ['a job id with a newline', request([job({ id: 'web\n' })]), 'pattern'],
    ['a step name with an escape sequence', request([job({ steps: [{ name: 'a\u001b[2J', run: 'x' }] })]), 'pattern'],
    ['a bidi override in the deployment name', request([job()], { name: 'abc\u202edef' }), 'pattern'],
    ['"10 minutes" as a timeout', request([job({ steps: [{ name: 's', run: 'x', timeout: '10 minutes' }] })]), 'pattern'],
    ['a zero duration', request([job({ restart: { policy: 'always', backoff: '0s', max_backoff: '5m' } })]), 'pattern'],
    ['an empty argv', request([job({ steps: [{ name: 's', run: [] }] })]), 'anyOf'],
    ['a NUL in a command', request([job({ steps: [{ name: 's', run: 'a\u0000b' }] })]), 'anyOf'],
    ['a service without steps', request([job({ steps: [] })]), 'minItems'],
    ['an observe job that observes nothing', request([job({ type: 'observe', steps: [] })]), 'minProperties'],
    ['a file name with ..', request([job({ files: { '../etc/passwd': 'x' } })]), 'pattern'],
    ['an absolute file name', request([job({ files: { '/etc/passwd': 'x' } })]), 'pattern'],
    ['a relative workdir path', request([job({ workdir: { kind: 'persistent', path: 'srv' } })]), 'pattern'],
    ['a workdir path with ..', request([job({ workdir: { kind: 'persistent', path: '/srv/../etc' } })]), 'pattern'],
    ['a bad env name', request([job({ env: { 'A-B': '1' } })]), 'pattern'],
    ['a numeric env value', request([job({ env: { A: 1 as unknown as string } })]), 'type'],
    ['65 jobs', request(Array.from({ length: 65 }, (_, i) => job({ id: `j${i}` }))), 'maxItems'],
    ['65 steps', request([job({ steps: Array.from({ length: 65 }, (_, i) => ({ name: `s${i}`, run: 'x' })) })]), 'maxItems'],
    ['retry with 0 attempts', request([job({ steps: [{ name: 's', run: 'x', retry: { attempts: 0, backoff: '1s' } }] })]), 'minimum'],
    ['an unknown rollback policy', request([job()], { rollback: { on_health_failure: 'some' as 'any', stabilization_period_secs: 60 } }), 'anyOf'],
  ])('refuses %s', (_, body, keyword) => {
    expect(validateRequest(body)).toBe(false);
    expect(validateRequest.errors?.map((e) => e.keyword)).toContain(keyword);
  });

  it('JOB_SCHEMA validates one job alone', () => {
    expect(validateJob(job())).toBe(true);
    expect(validateJob({ ...job(), extra: 1 })).toBe(false);
  });

  it('PLAIN_TEXT_PATTERN refuses exactly what CONTROL_CHARS matches', () => {
    const plain = new RegExp(PLAIN_TEXT_PATTERN, 'u');
    for (const text of ['a\u0007', 'a\u0085', 'a\u007f', 'a\u2028', 'a\u200e', 'a\u202e', 'ok', 'é ü 漢字']) {
      expect(plain.test(text)).toBe(!CONTROL_CHARS.test(text));
    }
  });
});

describe('deployRequestProblems', () => {
  const big = 'x'.repeat(DEPLOY_LIMITS.maxFileBytes);
  it.each<[string, DeployRequest, { path: string; message: RegExp }[]]>([
    ['a valid request', request([job(), job({ id: 'db' })]), []],
    ['duplicate job ids', request([job(), job({ id: 'db' }), job()]), [{ path: 'jobs[2].id', message: /duplicate job id "web" \(also jobs\[0\]\)/ }]],
    [
      'duplicate step names',
      request([job({ steps: [{ name: 'a', run: 'x' }, { name: 'a', run: 'y' }] })]),
      [{ path: 'jobs[0].steps[1].name', message: /duplicate step name "a" \(also steps\[0\]\)/ }],
    ],
    ['a file of exactly 1 MiB', request([job({ files: { a: big } })]), []],
    ['a file one byte over 1 MiB (multi-byte characters count as bytes)', request([job({ files: { a: big.slice(1) + 'é' } })]), [{ path: 'jobs[0].files.a', message: /1048577 bytes/ }]],
    [
      'more than 8 MiB in all',
      request(Array.from({ length: 9 }, (_, i) => job({ id: `j${i}`, files: { a: big } }))),
      [{ path: 'jobs', message: /more than the 8388608 bytes/ }],
    ],
  ])('%s', (_, body, expected) => {
    const problems = deployRequestProblems(body).map((p) => ({ path: formatDeployPath(p.path), message: p.message }));
    expect(problems).toEqual(expected.map((e) => ({ path: e.path, message: expect.stringMatching(e.message) })));
  });

  it.each<[(string | number)[], string]>([
    [['jobs', 1, 'steps', 0, 'timeout'], 'jobs[1].steps[0].timeout'],
    [['files', 'conf/app.env'], 'files["conf/app.env"]'],
    [['env', 'PORT'], 'env.PORT'],
  ])('formatDeployPath(%j) = %s', (path, text) => {
    expect(formatDeployPath(path)).toBe(text);
  });
});
