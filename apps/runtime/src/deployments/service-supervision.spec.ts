import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deployment, EngineKit, job, jobStatus, processRunning, readPid, report, sleeper } from '../../../../test/fixtures/deployment-jobs';
import { persistentWorkdir } from './job-workdir';
import { eventually } from '../../../../test/fixtures/eventually';

const NODE = process.execPath;
const readText = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
/** A tiny HTTP server on an ephemeral port, which it writes to `port`; its health probe asks it over HTTP. */
const HTTP_SERVICE = `exec "$NODE" -e "require('http').createServer((q, s) => s.end('ok')).listen(0, function () { require('fs').writeFileSync('port', String(this.address().port)); })"`;
const HTTP_PROBE = `"$NODE" -e "fetch('http://127.0.0.1:' + require('fs').readFileSync('port', 'utf8')).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"`;

describe('service jobs', () => {
  const kit = new EngineKit();
  afterEach(() => kit.cleanUp());

  it('runs two services, both running and healthy, one of them health-checked over HTTP', async () => {
    const engine = kit.engine();
    await engine.start();
    const web = job({ id: 'web', env: { NODE }, steps: [{ name: 'serve', run: HTTP_SERVICE }], observe: { health: { every: '1s', observe: HTTP_PROBE, fails_after: 3 } } });
    const reports = await engine.apply({ revision: 1, deployment: deployment('d1', [web, sleeper('worker')]) });
    expect(reports.map((candidate) => candidate.deployment_id)).toEqual(['d1']);
    const running = await eventually('d1 running', () => report(engine, 'd1')?.status === 'running' && report(engine, 'd1'));
    expect(running.jobs.map(({ id, status, health }) => ({ id, status, health }))).toEqual([
      { id: 'web', status: 'running', health: 'healthy' },
      { id: 'worker', status: 'running', health: 'healthy' },
    ]);
    expect(running.jobs[1].log_tail).toContain('started');
  });

  it('restarts a killed main process (policy always), counting restarts', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    await engine.apply({ revision: 1, deployment: deployment('d1', [sleeper('worker')]) });
    const pidFile = join(persistentWorkdir(dir, 'worker'), 'pid');
    const first = await eventually('the first pid', () => readPid(pidFile));
    process.kill(first, 'SIGKILL');
    const second = await eventually('a new pid', () => readPid(pidFile) !== first && readPid(pidFile));
    expect(second).not.toBe(first);
    const status = await eventually('running again', () => jobStatus(engine, 'worker')?.status === 'running' && jobStatus(engine, 'worker'));
    expect(status.restarts).toBe(1);
    expect(status.reason).toMatch(/main process ended: killed by SIGKILL; restart 1/);
  });

  it('does not restart with policy never; on_failure restarts a failure but not a clean exit', async () => {
    const engine = kit.engine();
    await engine.start();
    const never = job({ id: 'never', steps: [{ name: 'main', run: 'exit 3' }], restart: { policy: 'never' } });
    const flaky = job({ id: 'flaky', steps: [{ name: 'main', run: 'n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; [ "$n" -ge 2 ]' }], restart: { policy: 'on_failure' } });
    const clean = job({ id: 'clean', steps: [{ name: 'main', run: 'true' }], restart: { policy: 'on_failure' } });
    await engine.apply({ revision: 1, deployment: deployment('d1', [never, flaky, clean]) });
    await eventually('all settled', () => ['failed', 'completed'].includes(jobStatus(engine, 'flaky')?.status ?? '') && jobStatus(engine, 'clean')?.status === 'completed');
    expect(jobStatus(engine, 'never')).toMatchObject({ status: 'failed', health: 'unhealthy', restarts: 0, exit_code: 3, reason: 'main process ended: exit code 3' });
    expect(jobStatus(engine, 'flaky')).toMatchObject({ status: 'completed', restarts: 2, exit_code: 0 });
    expect(jobStatus(engine, 'clean')).toMatchObject({ status: 'completed', restarts: 0 });
    expect(report(engine, 'd1')?.status).toBe('failed');
  });

  it('backs off exponentially between restarts, up to max_backoff', async () => {
    const engine = kit.engine();
    await engine.start();
    const crasher = job({ id: 'crasher', steps: [{ name: 'main', run: 'date +%s%N >> starts; exit 1' }], restart: { policy: 'always', backoff: '100ms', max_backoff: '400ms' } });
    await engine.apply({ revision: 1, deployment: deployment('d1', [crasher]) });
    const status = await eventually('five restarts', () => (jobStatus(engine, 'crasher')?.restarts ?? 0) >= 5 && jobStatus(engine, 'crasher'));
    expect(status.reason).toMatch(/main process ended: exit code 1; restart \d+ in (400|200|100) ms/);
    expect(report(engine, 'd1')?.status).toBe('degraded');
  });

  it('starts the backoff from the beginning again after the service stayed up long enough', async () => {
    const engine = kit.engine(undefined, { stableAfterMs: 300 });
    await engine.start();
    const steady = job({ id: 'steady', steps: [{ name: 'main', run: 'sleep 0.4; exit 1' }], restart: { policy: 'always', backoff: '100ms', max_backoff: '1s' } });
    await engine.apply({ revision: 1, deployment: deployment('d1', [steady]) });
    const status = await eventually('three restarts', () => (jobStatus(engine, 'steady')?.restarts ?? 0) >= 3 && jobStatus(engine, 'steady'));
    expect(status.reason).toMatch(/; restart 3 in 100 ms$/);
  });

  it('restarts a service whose liveness probe fails, saying so', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    // Alive until the file `dead` appears. A probe's timeout is its interval: 1 s, so that a loaded
    // machine's slow fork fails no check by timing out (the reason would say "timed out").
    const worker = sleeper('worker', { observe: { liveness: { every: '1s', observe: 'test ! -e dead', fails_after: 2 } } });
    await engine.apply({ revision: 1, deployment: deployment('d1', [worker]) });
    const workdir = persistentWorkdir(dir, 'worker');
    const first = await eventually('the first pid', () => readPid(join(workdir, 'pid')));
    require('node:fs').writeFileSync(join(workdir, 'dead'), '');
    const status = await eventually('a restart', () => (jobStatus(engine, 'worker')?.restarts ?? 0) >= 1 && jobStatus(engine, 'worker'));
    expect(status.reason).toMatch(/^liveness probe failed 2 times \(exit code 1\)/);
    await eventually('the old process gone', () => !processRunning(first));

    // With restart policy never, a failed liveness probe fails the job instead.
    const once = sleeper('once', { restart: { policy: 'never' }, observe: { liveness: { every: '1s', observe: 'exit 1', fails_after: 2 } } });
    await engine.apply({ revision: 2, deployment: deployment('d1', [worker, once]) });
    const failed = await eventually('once failed', () => jobStatus(engine, 'once')?.status === 'failed' && jobStatus(engine, 'once'));
    expect(failed).toMatchObject({ restarts: 0, reason: 'liveness probe failed 2 times (exit code 1)' });
  });

  it('treats a main step that exits 0 with a liveness probe as detached (like compose up -d)', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    const detached = job({
      id: 'detached',
      steps: [{ name: 'up', run: 'echo up >> ups' }],
      // Probe timeouts are their intervals: long enough that a loaded machine's slow fork fails no check.
      // The liveness probe passes while `ups` exists, and notes each pass in `lives`.
      observe: { liveness: { every: '500ms', observe: 'test -e ups && echo pass >> lives', fails_after: 2 }, health: { every: '1s', observe: 'true', fails_after: 1 } },
    });
    await engine.apply({ revision: 1, deployment: deployment('d1', [detached]) });
    await eventually('healthy', () => jobStatus(engine, 'detached')?.health === 'healthy');
    // The liveness probe passed twice: a detached job whose main step ended is not restarted.
    await eventually('two passed liveness checks', () => (readText(join(persistentWorkdir(dir, 'detached'), 'lives'))?.split('\n').length ?? 0) > 2);
    expect(jobStatus(engine, 'detached')).toMatchObject({ status: 'running', health: 'healthy', restarts: 0, exit_code: 0 });
    expect(report(engine, 'd1')?.status).toBe('running');
  });

  it('runs the setup steps again after a failure when the restart policy allows it', async () => {
    const engine = kit.engine();
    await engine.start();
    const setup = job({
      id: 'setup',
      steps: [
        { name: 'fetch', run: 'n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; [ "$n" -ge 1 ]' },
        { name: 'main', run: 'exec sleep 300' },
      ],
      restart: { policy: 'on_failure' },
    });
    await engine.apply({ revision: 1, deployment: deployment('d1', [setup]) });
    const status = await eventually('running', () => jobStatus(engine, 'setup')?.status === 'running' && jobStatus(engine, 'setup'));
    expect(status).toMatchObject({ restarts: 1, steps: [{ name: 'fetch', status: 'ok' }, { name: 'main', status: 'running' }] });
    expect(status.reason).toMatch(/^step "fetch" failed: exit code 1; restart 1 in 100 ms$/);
  });

  it('an observe job runs no steps: only its probes and the output of its log command', async () => {
    const engine = kit.engine();
    await engine.start();
    const watcher = job({
      id: 'watch',
      type: 'observe',
      steps: [{ name: 'never', run: 'echo ran > ran' }],
      observe: { logs: { follow: 'echo following; exec sleep 300' }, health: { every: '100ms', observe: 'test ! -e ran', fails_after: 1 } },
    });
    await engine.apply({ revision: 1, deployment: deployment('d1', [watcher]) });
    const status = await eventually('healthy', () => jobStatus(engine, 'watch')?.health === 'healthy' && jobStatus(engine, 'watch'));
    expect(status.status).toBe('running');
    await eventually('the log command output', () => engine.log('watch')?.tail(10).includes('following'));
    expect(report(engine, 'd1')?.status).toBe('running');
  });
});
