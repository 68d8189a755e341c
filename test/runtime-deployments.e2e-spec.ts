/**
 * Deployments end to end: a real server, a real runtime process, real job processes. Deploy over
 * REST → the runtime runs the jobs → status over REST; a killed job restarted; a deployment that
 * never gets healthy rolled back to the previous one; a job's log over REST; the runtime
 * restarted while the server is down runs its jobs again from the stored state. Operations are
 * called by name through the SDK.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import type { Job } from '@svc/common';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { processRunning } from './fixtures/deployment-jobs';
import { FleetUser, useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import type { TestServer } from './fixtures/test-server';
import { eventually as waitUntil } from './fixtures/eventually';

const OWNER = 'owner@deploy-e2e.test';
const WAIT_MS = 30_000;

/** A service whose main process writes its pid to `pid` in its workdir and sleeps as that same process. */
function sleeper(id: string, over: Partial<Job> = {}): Job {
  return serviceJob(id, { steps: [{ name: 'main', run: 'echo $$ > pid; echo "$JOB_GREETING"; exec sleep 3600' }], env: { JOB_GREETING: `hello from ${id}` }, restart: { policy: 'always', backoff: '200ms', max_backoff: '1s' }, ...over });
}

describe('deployments on a real runtime', () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-deploy-e2e-'));
  const deviceId = 'deploy-e2e';
  let server: TestServer | undefined;
  let owner: FleetUser;
  let runtime: RuntimeProcess | undefined;
  let env: Record<string, string>;
  let ticker: NodeJS.Timeout | undefined;
  // Declared before the fleet, so that it runs first: the runtime (restarted by the tests, so not the fleet's) stops before the server.
  afterAll(async () => {
    clearInterval(ticker);
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    rmSync(home, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { owner: OWNER }, devices: { [deviceId]: { owner: 'owner' } } });

  const configDir = () => join(home, 'svc');
  const pidOf = (jobId: string): number | undefined => {
    try {
      const pid = Number(readFileSync(join(configDir(), 'deployments', 'jobs', jobId, 'pid'), 'utf8').trim());
      return pid > 0 && processRunning(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  const status = async (deploymentId?: string): Promise<any> => owner.run('device_deployment_status', { device: deviceId, deployment_id: deploymentId });
  const deploy = (body: unknown) => owner.route('device_deploy.jobs', { device: deviceId }, body);
  const activate = (deploymentId: string) => owner.run('device_deployment_activate', { device: deviceId, deployment_id: deploymentId });

  const eventually = <T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>) =>
    waitUntil(what, check, {
      timeoutMs: WAIT_MS,
      describe: async () => `last status: ${server ? JSON.stringify(await status()) : 'server down'}\nruntime log:\n${runtime?.stderr.slice(-40).join('\n')}`,
    });

  beforeAll(async () => {
    server = fleet.server;
    // The test server's clock stands still; reports stored in the same instant would tie as "newest".
    ticker = setInterval(() => server?.clock.advance(20), 20);
    owner = fleet.user('owner');
    // A copy: the server's own goes with it when it stops, and the runtime is restarted after that.
    copyFileSync(server.tunnel!.caFile, join(home, 'ca.pem'));
    env = { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_SERVER_URL: server.url, SVC_CA_FILE: join(home, 'ca.pem'), SVC_API_KEY: fleet.device(deviceId).apiKey, SVC_IMAGE_UPDATE_INTERVAL: 'off' };
    runtime = startRuntimeProcess(['run'], env);
    await runtime.waitForLog('deployment channel open');
  });

  it('runs two deployed service jobs, running and healthy in the status; a killed job is restarted and counted', async () => {
    const web = sleeper('web', { observe: { health: { every: '200ms', observe: 'test -s pid', fails_after: 2 } } });
    const deployed = await deploy(deployRequest([web, sleeper('worker')]));
    const running = await eventually('running and healthy', async () => {
      const current = await status();
      return current.status === 'running' && current.jobs.length === 2 && current;
    });
    expect(running.deployment_id).toBe(deployed.deployment_id);
    expect(running.jobs.map(({ id, status: state, health }: { id: string; status: string; health: string }) => [id, state, health])).toEqual([
      ['web', 'running', 'healthy'],
      ['worker', 'running', 'healthy'],
    ]);

    const first = await eventually('the worker pid', () => pidOf('worker'));
    process.kill(first, 'SIGKILL');
    const restarted = await eventually('the restart in the status', async () => {
      const job = (await status()).jobs.find((candidate: { id: string }) => candidate.id === 'worker');
      return job?.restarts >= 1 && job.status === 'running' && job;
    });
    expect(restarted.reason).toMatch(/killed by SIGKILL/);
    expect(pidOf('worker')).not.toBe(first);

    const log = await text(await owner.client.deploymentLogs(deviceId, 'worker', { tail: 50 }));
    expect(log).toContain('hello from worker');
  });

  it('rolls back a deployment whose job never gets healthy: the previous one runs again, the status says why', async () => {
    const good = (await status()).deployment_id as string;
    const goodPid = await eventually('the web pid', () => pidOf('web'));
    const bad = (await owner.run('device_deployment_new', { device: deviceId })).id;
    const broken = sleeper('api', { observe: { health: { every: '200ms', observe: 'exit 1', fails_after: 2 } } });
    await deploy(deployRequest([broken], { deployment_id: bad, mode: 'replace', rollback: { on_health_failure: 'any', stabilization_period_secs: 20 } }));
    await activate(bad);

    const verdict = await eventually('the rollback', async () => {
      const current = await status(bad);
      return current.status === 'rolled_back' && current;
    });
    expect(verdict.rollback).toEqual({ to_deployment_id: good, reason: expect.stringMatching(/^job api is running, unhealthy/) });
    await eventually('the previous deployment active again', async () => (await owner.run('device_deployment_active', { device: deviceId })).active_deployment_id === good);
    await eventually('the previous deployment running again', async () => (await status(good)).status === 'running');
    expect(processRunning(goodPid)).toBe(false); // stopped when the bad one started, a new process now
    expect(pidOf('web')).toBeDefined();
    expect(pidOf('api')).toBeUndefined();
  });

  it('clone → edit → activate: the old jobs stop and the new ones run; an undeployed job is gone', async () => {
    const current = (await status()).deployment_id as string;
    const oldPids = [await eventually('web', () => pidOf('web')), await eventually('worker', () => pidOf('worker'))];
    const clone = (await owner.run('device_deployment_clone', { device: deviceId, deployment_id: current })).id;
    await deploy(deployRequest([sleeper('extra')], { deployment_id: clone }));
    await activate(clone);
    await eventually('the clone running', async () => {
      const now = await status();
      return now.deployment_id === clone && now.status === 'running' && now.jobs.length === 3;
    });
    expect(oldPids.filter(processRunning)).toEqual([]);
    const extra = await eventually('extra', () => pidOf('extra'));

    await owner.run('device_undeploy', { device: deviceId, job_id: 'extra' });
    await eventually('extra gone', () => !processRunning(extra));
    await eventually('two jobs reported', async () => (await status()).jobs.length === 2);
  });

  it('converges on what was deployed while the device was offline', async () => {
    runtime!.kill('SIGTERM');
    expect(await runtime!.exited).toEqual({ code: 0, signal: null });
    await eventually('offline', async () => (await owner.route('device_status.one', { device: deviceId })).status === 'offline');
    await deploy(deployRequest([sleeper('late')]));
    runtime = startRuntimeProcess(['run'], env);
    await eventually('late running', async () => {
      const now = await status();
      return now.status === 'running' && now.jobs.some((job: { id: string; status: string }) => job.id === 'late' && job.status === 'running');
    });
    expect(pidOf('late')).toBeDefined();
  });

  it('runs the jobs again from the stored state when the runtime restarts while the server is down', async () => {
    const before = await eventually('the web pid', () => pidOf('web'));
    await server!.close();
    server = undefined;
    runtime!.kill('SIGTERM');
    expect(await runtime!.exited).toEqual({ code: 0, signal: null });
    expect(processRunning(before)).toBe(false); // jobs stop with the runtime

    runtime = startRuntimeProcess(['run'], env);
    const after = await eventually('web running again without a server', () => pidOf('web') !== before && pidOf('web'));
    expect(processRunning(after)).toBe(true);
    // The worker restarts alongside, not necessarily before web: wait for it too.
    expect(await eventually('the worker running again', () => pidOf('worker'))).toBeDefined();
  });
});
