import { join } from 'node:path';
import type { DeploymentStatusReport, RollbackPolicy } from '@svc/common';
import { deployment, EngineKit, job, processRunning, readPid, report, sleeper } from '../../../../test/fixtures/deployment-jobs';
import type { DeploymentEngine } from './deployment-engine';
import { persistentWorkdir } from './job-workdir';
import { eventually } from '../../../../test/fixtures/eventually';

/** Healthy at its first check; one check timing out on a loaded machine (timeout = interval) does not make it unhealthy. */
const healthy = (id: string) => sleeper(id, { observe: { health: { every: '100ms', observe: 'true', fails_after: 3 } } });
const neverHealthy = (id: string) => sleeper(id, { observe: { health: { every: '100ms', observe: 'exit 1', fails_after: 2 } } });
/** The same, for a reason that names the check's exit code: a probe's timeout is its interval, and a loaded machine's fork can take 100 ms (the reason would say "timed out"). */
const neverHealthyExit1 = (id: string) => sleeper(id, { observe: { health: { every: '1s', observe: 'exit 1', fails_after: 2 } } });
const noRestart = { policy: 'never' as const };

function rolledBack(engine: DeploymentEngine): DeploymentStatusReport | undefined {
  return engine.reports().find((candidate) => candidate.status === 'rolled_back');
}

describe('health-gated activation', () => {
  const kit = new EngineKit();
  afterEach(() => kit.cleanUp());

  async function startWithGood(dir: string): Promise<{ engine: DeploymentEngine; goodPid: number }> {
    const engine = kit.engine(dir);
    await engine.start();
    await engine.apply({ revision: 1, deployment: deployment('good', [healthy('web')]) });
    await eventually('good running', () => report(engine, 'good')?.status === 'running');
    return { engine, goodPid: await eventually('good pid', () => readPid(join(persistentWorkdir(dir, 'web'), 'pid'))) };
  }

  it('rolls back a deployment whose job never gets healthy (any): the previous one runs again, the report says why', async () => {
    const dir = kit.tempDir();
    const { engine, goodPid } = await startWithGood(dir);
    const rollback: RollbackPolicy = { on_health_failure: 'any', stabilization_period_secs: 10 };
    await engine.apply({ revision: 2, deployment: deployment('bad', [neverHealthyExit1('api')], { rollback }) });
    expect(processRunning(goodPid)).toBe(false);
    const badPid = await eventually('bad pid', () => readPid(join(persistentWorkdir(dir, 'api'), 'pid')));

    const verdict = await eventually('rolled back', () => rolledBack(engine));
    expect(verdict).toMatchObject({ deployment_id: 'bad', rollback: { to_deployment_id: 'good', reason: expect.stringMatching(/^job api is running, unhealthy \(health check failed 2 times in a row: exit code 1\); on_health_failure: any$/) } });
    expect(verdict.jobs[0]).toMatchObject({ id: 'api', health: 'unhealthy' });
    await eventually('good running again', () => report(engine, 'good')?.status === 'running');
    expect(processRunning(badPid)).toBe(false);
    expect(readPid(join(persistentWorkdir(dir, 'web'), 'pid'))).toBeDefined();
    expect(engine.reports().map((candidate) => [candidate.deployment_id, candidate.status])).toEqual([
      ['bad', 'rolled_back'],
      ['good', 'running'],
    ]);

    // The same desired state again (a reconnect, a server whose revision restarted): not retried.
    const again = await engine.apply({ revision: 7, deployment: deployment('bad', [neverHealthyExit1('api')], { rollback }) });
    expect(again.map((candidate) => candidate.status)).toEqual(['rolled_back', 'running']);
    expect(readPid(join(persistentWorkdir(dir, 'api'), 'pid'))).toBeUndefined();

    // The server flips back to the previous deployment: the rolled-back report is no longer sent.
    await engine.apply({ revision: 8, deployment: deployment('good', [healthy('web')]) });
    expect(engine.reports().map((candidate) => candidate.deployment_id)).toEqual(['good']);
  });

  it('rolls back at the end of the period when a job is not healthy, and tries a changed deployment again', async () => {
    const dir = kit.tempDir();
    const { engine } = await startWithGood(dir);
    // `{consecutive: 50}` is never reached within 3 s (50 checks take over 5 s): the end-of-period
    // check decides. 3 s, not 1: a loaded machine may not have failed the two checks that make the
    // job unhealthy within one second (the reason would say "unknown").
    const rollback: RollbackPolicy = { on_health_failure: { consecutive: 50 }, stabilization_period_secs: 3 };
    await engine.apply({ revision: 2, deployment: deployment('bad', [neverHealthy('api')], { rollback }) });
    const verdict = await eventually('rolled back', () => rolledBack(engine));
    // The reason is the end-of-period check's own (no timing assertion: timers may fire a millisecond early by Date.now()).
    expect(verdict.rollback?.reason).toMatch(/^not healthy within the stabilization period of 3 s: job api is running, unhealthy/);

    // Fixed (another updated_at): tried again, and this time it stays.
    await engine.apply({ revision: 3, deployment: deployment('bad', [healthy('api')], { rollback, updated_at: '2025-03-01T00:00:00.000Z' }) });
    await eventually('bad running', () => report(engine, 'bad')?.status === 'running');
    await eventually('the period over and the deployment stable', () => gating(engine) === null);
    expect(engine.reports().map((candidate) => [candidate.deployment_id, candidate.status])).toEqual([['bad', 'running']]);
  });

  it('counts consecutive failed health checks, and rolls back to nothing when nothing ran before', async () => {
    const engine = kit.engine();
    await engine.start();
    const rollback: RollbackPolicy = { on_health_failure: { consecutive: 3 }, stabilization_period_secs: 20 };
    await engine.apply({ revision: 1, deployment: deployment('bad', [healthy('ok'), neverHealthy('api')], { rollback }) });
    const verdict = await eventually('rolled back', () => rolledBack(engine));
    expect(verdict.rollback).toEqual({ to_deployment_id: null, reason: 'job api failed 3 health checks in a row; on_health_failure: consecutive 3' });
    await eventually('nothing running', () => engine.reports().length === 1);
  });

  it('with all, rolls back only once every job is unhealthy or failed', async () => {
    const dir = kit.tempDir();
    const { engine } = await startWithGood(dir);
    const rollback: RollbackPolicy = { on_health_failure: 'all', stabilization_period_secs: 20 };
    const crash = job({ id: 'crash', steps: [{ name: 'main', run: 'sleep 0.5; exit 1' }], restart: noRestart });
    await engine.apply({ revision: 2, deployment: deployment('half', [healthy('ok'), crash], { rollback }) });
    // The gate checks every change as it happens: once both jobs settled (one failed, one healthy) it has seen all it will.
    await eventually('crash failed and ok healthy', () => report(engine, 'half')?.jobs[1].status === 'failed' && report(engine, 'half')?.jobs[0].health === 'healthy');
    expect(rolledBack(engine)).toBeUndefined();
    expect(report(engine, 'half')?.status).toBe('failed');

    await engine.apply({ revision: 3, deployment: deployment('none', [neverHealthy('x'), crash], { rollback }) });
    const verdict = await eventually('rolled back', () => rolledBack(engine));
    expect(verdict.rollback).toMatchObject({ to_deployment_id: 'half', reason: expect.stringMatching(/^every job is unhealthy or failed: x running, unhealthy.*; crash failed/) });
  });

  it('a runtime restarted during the stabilization period gates the deployment again', async () => {
    const dir = kit.tempDir();
    const { engine } = await startWithGood(dir);
    const rollback: RollbackPolicy = { on_health_failure: 'any', stabilization_period_secs: 30 };
    await engine.apply({ revision: 2, deployment: deployment('bad', [sleeper('api', { observe: { health: { every: '100ms', observe: 'test -e ok', fails_after: 2 } } })], { rollback }) });
    await kit.shutdown(engine);
    const restarted = kit.engine(dir);
    await restarted.start();
    const verdict = await eventually('rolled back', () => rolledBack(restarted));
    expect(verdict.rollback?.to_deployment_id).toBe('good');
    await eventually('good running', () => report(restarted, 'good')?.status === 'running');
  });
});

/** The deployment whose health the engine still watches (null once it settled). */
function gating(engine: DeploymentEngine): unknown {
  return (engine as unknown as { state: { gating: unknown } }).state.gating;
}
