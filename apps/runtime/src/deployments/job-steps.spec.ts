import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deployment, EngineKit, job, jobStatus, processRunning, readPid } from '../../../../test/fixtures/deployment-jobs';
import { persistentWorkdir } from './job-workdir';
import { eventually } from '../../../../test/fixtures/eventually';

describe('job steps', () => {
  const kit = new EngineKit();
  afterEach(() => kit.cleanUp());

  it('retries a failing step per its policy (fails twice, then succeeds) and completes', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    const migrate = job({
      id: 'migrate',
      type: 'job',
      steps: [
        { name: 'prepare', run: ['sh', '-c', 'echo prepared > prepared'] },
        { name: 'flaky', run: 'n=$(cat tries 2>/dev/null || echo 0); echo $((n+1)) > tries; [ "$n" -ge 2 ] || exit 7', retry: { attempts: 3, backoff: '50ms' } },
      ],
    });
    await engine.apply({ revision: 1, deployment: deployment('d1', [migrate]) });
    const status = await eventually('completed', () => jobStatus(engine, 'migrate')?.status === 'completed' && jobStatus(engine, 'migrate'));
    expect(status).toMatchObject({ health: 'healthy', steps: [{ name: 'prepare', status: 'ok', exit_code: 0, attempts: 1 }, { name: 'flaky', status: 'ok', exit_code: 0, attempts: 3 }] });
    expect(readFileSync(join(persistentWorkdir(dir, 'migrate'), 'tries'), 'utf8').trim()).toBe('3');
    expect(status.log_tail?.filter((line) => line.includes('retrying step "flaky"'))).toHaveLength(2);
  });

  it('stops retrying on an exit code not listed, fails, and undoes the executed steps in reverse order', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    const setup = job({
      id: 'setup',
      type: 'job',
      on_failure: { undo: 'executed_steps' },
      steps: [
        { name: 'one', run: 'echo one >> done', undo: 'echo undo-one >> undone' },
        { name: 'two', run: 'echo two >> done', undo: ['sh', '-c', 'echo undo-two >> undone'] },
        { name: 'three', run: 'exit 4', undo: 'echo undo-three >> undone', retry: { attempts: 5, backoff: '50ms', on_exit_codes: [75] } },
        { name: 'four', run: 'echo four >> done' },
      ],
    });
    await engine.apply({ revision: 1, deployment: deployment('d1', [setup]) });
    const status = await eventually('failed', () => jobStatus(engine, 'setup')?.status === 'failed' && jobStatus(engine, 'setup'));
    expect(status).toMatchObject({ health: 'unhealthy', exit_code: 4, reason: 'step "three" failed: exit code 4' });
    expect(status.steps?.map((step) => [step.name, step.status, step.attempts])).toEqual([
      ['one', 'ok', 1],
      ['two', 'ok', 1],
      ['three', 'failed', 1],
    ]);
    const workdir = persistentWorkdir(dir, 'setup');
    expect(readFileSync(join(workdir, 'done'), 'utf8')).toBe('one\ntwo\n');
    await eventually('undo done', () => readFileSync(join(workdir, 'undone'), 'utf8') === 'undo-two\nundo-one\n');
  });

  it('kills a step at its timeout, with its whole process group', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    // The step starts a background sleeper (same group) that writes its pid, then blocks.
    const slow = job({ id: 'slow', type: 'job', steps: [{ name: 'hang', run: 'sleep 300 & echo $! > pid; wait', timeout: '300ms' }] });
    await engine.apply({ revision: 1, deployment: deployment('d1', [slow]) });
    const background = await eventually('the background pid', () => readPid(join(persistentWorkdir(dir, 'slow'), 'pid')));
    // No stopwatch (a loaded machine is slow): the step sleeps 300 s, so "timed_out" is the timeout's doing.
    const status = await eventually('failed', () => jobStatus(engine, 'slow')?.status === 'failed' && jobStatus(engine, 'slow'));
    expect(status).toMatchObject({ reason: 'step "hang" failed: timed out', steps: [{ name: 'hang', status: 'timed_out' }] });
    await eventually('the background process gone', () => !processRunning(background));
  });

  it('writes files with their content, runs with the job env but never SVC_API_KEY, and removes an ephemeral workdir at stop', async () => {
    const dir = kit.tempDir();
    process.env.SVC_API_KEY = 'svc_secret_key_that_must_not_leak_0123456789';
    try {
      const engine = kit.engine(dir);
      await engine.start();
      const files = { 'app.conf': 'port=8080\n', 'config/nested/settings.json': '{"a":1}' };
      const eph = job({
        id: 'eph',
        workdir: { kind: 'ephemeral' },
        files,
        env: { GREETING: 'hello' },
        steps: [{ name: 'main', run: 'pwd > "$HOME_DIR/where"; echo "$GREETING ${SVC_API_KEY:-none}" > "$HOME_DIR/env"; exec sleep 300' }],
      });
      eph.env.HOME_DIR = kit.tempDir();
      await engine.apply({ revision: 1, deployment: deployment('d1', [eph]) });
      const where = await eventually('the workdir', () => existsSync(join(eph.env.HOME_DIR, 'where')) && readFileSync(join(eph.env.HOME_DIR, 'where'), 'utf8').trim());
      expect(where.startsWith(join(dir, 'ephemeral', 'eph-'))).toBe(true);
      expect(readFileSync(join(where, 'app.conf'), 'utf8')).toBe('port=8080\n');
      expect(readFileSync(join(where, 'config/nested/settings.json'), 'utf8')).toBe('{"a":1}');
      expect(statSync(join(where, 'app.conf')).mode & 0o777).toBe(0o644);
      await eventually('env written', () => existsSync(join(eph.env.HOME_DIR, 'env')));
      expect(readFileSync(join(eph.env.HOME_DIR, 'env'), 'utf8').trim()).toBe('hello none');
      await engine.apply({ revision: 2, deployment: null });
      expect(existsSync(where)).toBe(false);
      expect(readdirSync(join(dir, 'ephemeral'))).toEqual([]);
    } finally {
      delete process.env.SVC_API_KEY;
    }
  });

  it('refuses a file name that leaves the workdir', async () => {
    const engine = kit.engine();
    await engine.start();
    await engine.apply({ revision: 1, deployment: deployment('d1', [job({ id: 'evil', type: 'job', files: { '../escape': 'x' }, steps: [{ name: 'a', run: 'true' }] })]) });
    const status = await eventually('failed', () => jobStatus(engine, 'evil')?.status === 'failed' && jobStatus(engine, 'evil'));
    expect(status.reason).toMatch(/cannot prepare the workdir: file name "\.\.\/escape" must be a relative path inside the workdir/);
  });

  it('does not run a completed job again after a restart of the engine, but runs it once it changed', async () => {
    const dir = kit.tempDir();
    const once = job({ id: 'once', type: 'job', steps: [{ name: 'count', run: 'echo run >> runs' }] });
    const first = kit.engine(dir);
    await first.start();
    await first.apply({ revision: 1, deployment: deployment('d1', [once]) });
    await eventually('completed', () => jobStatus(first, 'once')?.status === 'completed');
    await kit.shutdown(first);

    const second = kit.engine(dir);
    await second.start();
    expect(jobStatus(second, 'once')?.status).toBe('completed');
    const runs = join(persistentWorkdir(dir, 'once'), 'runs');
    expect(readFileSync(runs, 'utf8')).toBe('run\n');

    const changed = { ...once, steps: [{ name: 'count', run: 'echo run2 >> runs' }] };
    await second.apply({ revision: 2, deployment: deployment('d1', [changed], { updated_at: '2025-01-02T00:00:00.000Z' }) });
    await eventually('ran again', () => readFileSync(runs, 'utf8') === 'run\nrun2\n');
  });
});
