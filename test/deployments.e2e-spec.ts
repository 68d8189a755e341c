/**
 * Deployments through the `svc` CLI end to end: the real binary, the real server and identity
 * provider, and a real runtime process running the jobs as real processes on this machine. The
 * issue's "Done when" from a user's seat: deploy two services → running and healthy; a killed job
 * restarted per its policy; job logs (and --follow); clone → edit → activate; a rollback; undeploy;
 * a deploy while the device is offline; the runtime restarted while the server is down; batch
 * status. Waits poll the status by operation name; what is asserted is what the CLI prints.
 * (Bad files and `svc mcp`: deployments-mcp.e2e-spec.ts. Report retention:
 * deployments-api-channel.e2e-spec.ts, at the REST level.)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, DeploymentStatus } from '@svc/common';
import { DeployProject, deploymentDocument, httpText, loopJob, processRunning, singleJob, webJob } from './fixtures/deploy-project';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { freePort } from './fixtures/free-port';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, collect, spawnSvc, svc, svcJson } from './fixtures/svc-cli';

const ALICE = 'alice@deployments-cli.test';
const DEVICE = 'dep-1';
/** Registered, never runs a runtime and never gets a deployment. */
const IDLE = 'dep-idle';

describe('deployments through svc (real binary, real server, real runtime)', () => {
  // Restartable: the server is restarted as the same server below. The device's runtime is
  // stopped and started by the tests (one while the server is down), so the suite runs it itself.
  const fleet = useFleet({ users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice' }, [IDLE]: { owner: 'alice' } }, relay: true, restartable: true });
  let serverUp = false;
  let runtime: RuntimeProcess | undefined;
  let runtimeEnv: Record<string, string>;
  let home: string;
  let alice: CliHome;
  let project: DeployProject;
  const ports = { web: 0, web2: 0 };
  const ids = { first: '', clone: '', bad: '' };
  /** `svc deployments logs --follow` processes, killed in afterAll should a test fail before it ends them. */
  const followers: ChildProcess[] = [];
  const follow = (job: string, args: string[] = []) => {
    const child = spawnSvc(alice, ['deployments', 'logs', DEVICE, job, '--follow', ...args]);
    followers.push(child);
    return child;
  };
  // The test server's clock stands still: reports stored in one instant would tie as the newest.
  const ticker = setInterval(() => serverUp && fleet.server.clock.advance(20), 20);

  const startRuntime = async () => {
    runtime = startRuntimeProcess(['run'], runtimeEnv);
    await runtime.waitForLog('deployment channel open');
  };
  const stopRuntime = async () => {
    runtime!.kill('SIGTERM');
    expect(await runtime!.exited).toEqual({ code: 0, signal: null });
    runtime = undefined;
  };
  const deploymentStatus = async (deploymentId?: string): Promise<DeploymentStatus> =>
    (await fleet.user('alice').run('device_deployment_status', { device: DEVICE, deployment_id: deploymentId })) as DeploymentStatus;
  const lastStatus = async () => `last status: ${serverUp ? JSON.stringify(await deploymentStatus().catch(() => 'none')) : 'server down'}\nruntime log:\n${runtime?.stderr.slice(-30).join('\n') ?? 'not running'}`;
  const until = <T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>) => eventually(what, check, { describe: lastStatus });
  const statusIs = (wanted: string, deploymentId?: string) => until(`deployment ${deploymentId ?? '(active)'} ${wanted}`, async () => (await deploymentStatus(deploymentId)).status === wanted);

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'svc-deployments-cli-'));
    project = new DeployProject();
    ports.web = await freePort();
    ports.web2 = await freePort();
    serverUp = true;
    const { url, tunnel } = fleet.server;
    runtimeEnv = { HOME: home, SVC_CONFIG_DIR: join(home, 'device'), SVC_SERVER_URL: url, SVC_CA_FILE: tunnel!.caFile, SVC_API_KEY: fleet.device(DEVICE).apiKey, SVC_IMAGE_UPDATE_INTERVAL: 'off' };
    await startRuntime();
    alice = fleet.user('alice').home;
  });
  afterAll(async () => {
    clearInterval(ticker);
    for (const child of followers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    project?.remove();
    rmSync(home, { recursive: true, force: true });
  });

  it('deploys a run-spec with two services: both running and healthy in the status, exit 0', async () => {
    const file = project.write('shop.yaml', deploymentDocument('shop v1', [webJob(project, { port: ports.web, version: '1' }), loopJob(project, 'worker')]));
    const deployed = await svcJson<{ status: string; deployment_id: string }>(alice, ['deploy', DEVICE, file]);
    expect(deployed).toEqual({ status: 'deployed', deployment_id: expect.any(String) });
    ids.first = deployed.deployment_id;
    await statusIs('running');

    const status = await svc(alice, ['deployments', 'status', DEVICE, '--json']);
    expect(status.code).toBe(0);
    const answer = JSON.parse(status.stdout) as DeploymentStatus;
    expect(answer).toMatchObject({ deployment_id: ids.first, status: 'running' });
    expect(answer.jobs.map(({ id, status: state, health }) => ({ id, state, health }))).toEqual([
      { id: 'web', state: 'running', health: 'healthy' },
      { id: 'worker', state: 'running', health: 'healthy' },
    ]);
    expect(await httpText(ports.web)).toBe('v1\n');

    expect(answer).toMatchObject({ online: true, stale: false, reported_at: expect.any(String) });
    expect(answer).not.toHaveProperty('rolled_back_from');

    const human = await svc(alice, ['deployments', 'status', DEVICE]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^Deployment ${ids.first}: running \\(reported \\S+, (\\d+s ago|just now)\\)$`, 'm'));
    expect(human.stdout).toMatch(/^JOB +STATUS +HEALTH +RESTARTS +REASON$/m);
    expect(human.stdout).toMatch(/^web +running +healthy +0 +-$/m);
    expect(human.stdout).not.toMatch(/offline|Stale/);
  });

  it('calls a status stale (exit 1) once the connected device has not reported for 3 report intervals, and fresh again after its next report', async () => {
    // The server's clock jumps 4 minutes: the last report is now older than 3 × 60 s. (Again should
    // the device's minutely report land between the jump and the reads.)
    const stale = await until('a stale status', async () => {
      fleet.server.clock.advance(4 * 60_000);
      const human = await svc(alice, ['deployments', 'status', DEVICE]);
      const json = await svc(alice, ['deployments', 'status', DEVICE, '--json']);
      return human.stdout.includes('Stale') && JSON.parse(json.stdout).stale === true && { human, json };
    });
    expect(stale.human.code).toBe(1);
    expect(stale.human.stdout).toMatch(/^Stale: the device is online but has not reported on this deployment for over 3 minutes/m);
    expect(stale.json.code).toBe(1);
    expect(JSON.parse(stale.json.stdout)).toMatchObject({ status: 'running', online: true, stale: true });
    // Its next report (a job change reports at once) makes it fresh.
    const worker = await until('the worker pid', () => project.pid('worker'));
    process.kill(worker, 'SIGKILL');
    await until('a fresh status', async () => !(await deploymentStatus()).stale);
  });

  it('restarts a killed job per its policy and shows the restart in the status', async () => {
    // The stale test above killed the worker once already.
    const restartsBefore = (await deploymentStatus()).jobs.find((job) => job.id === 'worker')?.restarts ?? 0;
    const first = await until('the worker pid', () => project.pid('worker'));
    process.kill(first, 'SIGKILL');
    await until('the worker restarted', async () => {
      const worker = (await deploymentStatus()).jobs.find((job) => job.id === 'worker');
      return (worker?.restarts ?? 0) > restartsBefore && worker?.status === 'running' && project.pid('worker') !== first;
    });
    const answer = await svcJson<DeploymentStatus>(alice, ['deployments', 'status', DEVICE]);
    expect(answer.jobs.find((job) => job.id === 'worker')).toMatchObject({ status: 'running', restarts: restartsBefore + 1, reason: expect.stringMatching(/SIGKILL/) });
    expect(processRunning(first)).toBe(false);
    expect((await svc(alice, ['deployments', 'status', DEVICE])).stdout).toMatch(new RegExp(`^worker +running +healthy +${restartsBefore + 1} +.*SIGKILL`, 'm'));
  });

  it('prints a job log raw, as JSON lines, and follows it until Ctrl-C (exit 0)', async () => {
    const log = await svc(alice, ['deployments', 'logs', DEVICE, 'worker', '--tail', '50']);
    expect(log.code).toBe(0);
    expect(log.stdout).toContain('worker started\n');
    const lines = await svcJson<{ device: string; job: string; lines: string[] }>(alice, ['deployments', 'logs', DEVICE, 'web']);
    expect(lines).toEqual({ device: DEVICE, job: 'web', lines: expect.arrayContaining([`web v1 on port ${ports.web}`]) });

    const following = follow('worker', ['--tail', '5']);
    const followed = collect(following, ['deployments', 'logs']);
    let out = '';
    following.stdout!.on('data', (chunk: string) => (out += chunk));
    await eventually('the tail', () => out.includes('worker started'));
    const marker = `poked at ${Date.now()}`;
    writeFileSync(join(project.dir, 'worker.poke'), `${marker}\n`);
    await eventually('the new line', () => out.includes(marker));
    following.kill('SIGINT');
    expect(await followed).toMatchObject({ code: 0, stderr: '' });

    const both = await svc(alice, ['deployments', 'logs', DEVICE, 'worker', '--follow', '--json']);
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout).error.message).toMatch(/--follow .* --json .* give one of them/);

    const unknown = await svc(alice, ['deployments', 'logs', DEVICE, 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Error: .*nope/);
  });

  it('clone → deploy a changed job into the clone → activate: the old processes are gone, the new ones run', async () => {
    expect(await svcJson(alice, ['deployments', 'active', DEVICE])).toEqual({ active_deployment_id: ids.first });
    expect((await svc(alice, ['deployments', 'active', DEVICE])).stdout).toBe(`${ids.first}\n`);
    const before = { web: project.pid('web')!, worker: project.pid('worker')! };

    const copy = await svcJson<Deployment>(alice, ['deployments', 'clone', DEVICE, ids.first]);
    expect(copy).toMatchObject({ active: false, name: 'shop v1', jobs: [expect.objectContaining({ id: 'web' }), expect.objectContaining({ id: 'worker' })] });
    ids.clone = copy.id;
    const v2 = project.write('web-v2.yaml', singleJob(webJob(project, { port: ports.web2, version: '2', pidKey: 'web2' })));
    expect(await svcJson(alice, ['deploy', DEVICE, v2, '--deployment', ids.clone])).toEqual({ status: 'deployed', deployment_id: ids.clone });
    const shown = await svcJson<Deployment>(alice, ['deployments', 'show', DEVICE, '--deployment', ids.clone]);
    expect(shown.jobs.find((job) => job.id === 'web')?.env).toEqual({ PORT: String(ports.web2), VERSION: '2' });
    expect(processRunning(before.web)).toBe(true); // an inactive deployment changes nothing on the device

    expect(await svcJson(alice, ['deployments', 'activate', DEVICE, ids.clone])).toEqual({ status: 'activated' });
    await statusIs('running', ids.clone);
    await until('the v2 web answering', async () => (await httpText(ports.web2)) === 'v2\n');
    await until('the old processes gone', () => !processRunning(before.web) && !processRunning(before.worker));
    expect(await httpText(ports.web)).toBeUndefined();
    expect(project.pid('worker')).toBeDefined();
    expect(project.pid('worker')).not.toBe(before.worker);
    expect((await svc(alice, ['deployments', 'active', DEVICE])).stdout).toBe(`${ids.clone}\n`);
  });

  it('rolls back a deployment whose job never gets healthy; the status says why and the previous one is active and running again', async () => {
    const empty = await svcJson<Deployment>(alice, ['deployments', 'new', DEVICE]);
    expect(empty).toMatchObject({ active: false, jobs: [] });
    ids.bad = empty.id;
    const never = `  - id: api
    steps: [{name: main, run: echo $$ > ${project.pidFile('api')}; exec sleep 3600}]
    observe:
      health: {every: 200ms, observe: exit 1, fails_after: 2}
`;
    const file = project.write('bad.yaml', deploymentDocument('never healthy', [never], 'rollback: {on_health_failure: any, stabilization_period_secs: 20}\n'));
    expect(await svcJson(alice, ['deploy', DEVICE, file, '--deployment', ids.bad])).toEqual({ status: 'deployed', deployment_id: ids.bad });
    expect((await svc(alice, ['deployments', 'activate', DEVICE, ids.bad])).stdout).toBe(`Activated deployment ${ids.bad} on ${DEVICE}.\n`);

    await statusIs('rolled_back', ids.bad);
    const verdict = await svc(alice, ['deployments', 'status', DEVICE, '--deployment', ids.bad, '--json']);
    expect(verdict.code).toBe(1);
    expect(JSON.parse(verdict.stdout)).toMatchObject({ status: 'rolled_back', rollback: { to_deployment_id: ids.clone, reason: expect.stringMatching(/job api .*unhealthy/) } });
    const human = await svc(alice, ['deployments', 'status', DEVICE, '--deployment', ids.bad]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(new RegExp(`^Rolled back to deployment ${ids.clone}: job api .*unhealthy`, 'm'));

    await until('the previous deployment active again', async () => (await svc(alice, ['deployments', 'active', DEVICE])).stdout === `${ids.clone}\n`);
    await statusIs('running', ids.clone);
    // The default status (the active deployment) says that a rollback made it active: from which, when, why; exit 1.
    const after = await svc(alice, ['deployments', 'status', DEVICE]);
    expect(after.code).toBe(1);
    expect(after.stdout).toMatch(new RegExp(`^Deployment ${ids.clone}: running `, 'm'));
    expect(after.stdout).toMatch(new RegExp(`^Active after an automatic rollback: deployment ${ids.bad} was rolled back at \\d{4}-\\S+Z: job api .*unhealthy`, 'm'));
    expect(JSON.parse((await svc(alice, ['deployments', 'status', DEVICE, '--json'])).stdout)).toMatchObject({
      deployment_id: ids.clone,
      status: 'running',
      rolled_back_from: { deployment_id: ids.bad, reason: expect.stringMatching(/job api .*unhealthy/), at: expect.any(String) },
    });
    expect(await httpText(ports.web2)).toBe('v2\n');
    expect(project.pid('api')).toBeUndefined();
  });

  it('undeploys a job: its process is gone and the deployment no longer has it', async () => {
    const worker = await until('the worker pid', () => project.pid('worker'));
    expect(await svcJson(alice, ['undeploy', DEVICE, 'worker'])).toEqual({ status: 'undeployed' });
    await until('the worker process gone', () => !processRunning(worker));
    // A change of the active deployment clears the rollback notice.
    await until('the status without the worker', async () => (await deploymentStatus()).jobs.every((job) => job.id !== 'worker'));
    expect(await deploymentStatus()).not.toHaveProperty('rolled_back_from');
    expect(project.pid('worker')).toBeUndefined();
    const shown = await svc(alice, ['deployments', 'show', DEVICE]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Deployment ${ids.clone} on ${DEVICE} \\(active\\)$`, 'm'));
    expect(shown.stdout).toMatch(/^web +service +yes +serve +health every 500ms +always \(200ms-1s\)$/m);
    expect(shown.stdout).not.toMatch(/^worker/m);
    expect((await svc(alice, ['undeploy', DEVICE, 'worker'])).code).toBe(2);
  });

  it('lists deployments, removes an inactive one and refuses to remove the active one', async () => {
    const listed = await svcJson<{ deployments: Deployment[] }>(alice, ['deployments', 'list', DEVICE]);
    expect(listed.deployments.map((d) => [d.id, d.active])).toEqual([
      [ids.first, false],
      [ids.clone, true],
      [ids.bad, false],
    ]);
    const table = await svc(alice, ['deployments', 'list', DEVICE]);
    expect(table.stdout).toMatch(new RegExp(`^${ids.clone} +yes +shop v1 +web +\\S+$`, 'm'));

    expect(await svcJson(alice, ['deployments', 'rm', DEVICE, ids.bad])).toEqual({ status: 'removed' });
    const refused = await svc(alice, ['deployments', 'rm', DEVICE, ids.clone, '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toEqual({ error: { code: 'CONFLICT', message: expect.stringMatching(/is active; activate another deployment first/), requestId: expect.any(String), exit_code: 2 } });
    const human = await svc(alice, ['deployments', 'rm', DEVICE, ids.clone]);
    expect(human.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Error: Deployment .* is active; activate another deployment first .*\(request \S+\)$/)]);
  });

  it('answers a batch status per device: an error for the device without an active deployment, exit 1', async () => {
    const batch = await svc(alice, ['deployments', 'status', '--devices', `${DEVICE},${IDLE}`, '--json']);
    expect(batch.code).toBe(1);
    expect(JSON.parse(batch.stdout)).toEqual({
      results: [expect.objectContaining({ device: DEVICE, deployment_id: ids.clone, status: 'running' }), { device: IDLE, error: 'No active deployment', code: 'NO_ACTIVE_DEPLOYMENT' }],
    });
    const human = await svc(alice, ['deployments', 'status', '--devices', `${DEVICE},${IDLE}`]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(new RegExp(`^${DEVICE}: Deployment ${ids.clone}: running`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^${IDLE}: error: No active deployment$`, 'm'));
    expect(await svcJson(alice, ['deployments', 'list', '--devices', `${DEVICE},${IDLE}`])).toEqual({
      results: [{ device: DEVICE, deployments: [expect.objectContaining({ id: ids.first }), expect.objectContaining({ id: ids.clone })] }, { device: IDLE, deployments: [] }],
    });
    expect((await svc(alice, ['deployments', 'status', IDLE])).code).toBe(2);
  });

  it('stores a deploy while the device is offline; the device converges when it reconnects', async () => {
    const following = follow('web');
    const followed = collect(following, ['deployments', 'logs']);
    let out = '';
    following.stdout!.on('data', (chunk: string) => (out += chunk));
    await eventually('the tail', () => out.includes('web v2'));
    const lastReport = (await deploymentStatus()).reported_at;
    await stopRuntime();
    // The runtime ends the log as it stops: a follow that ended by itself, said so.
    expect(await followed).toMatchObject({ code: 0, stderr: `svc: ${DEVICE} ended the log of web (its runtime stopped)\n` });

    // Its jobs stopped with it: the status says the device is offline and when it last reported, and exits 1.
    const offline = await svc(alice, ['deployments', 'status', DEVICE]);
    expect(offline.code).toBe(1);
    expect(offline.stdout).toMatch(new RegExp(`^Deployment ${ids.clone}: \\S+ \\(reported \\S+, `, 'm'));
    expect(offline.stdout).toMatch(/^Device offline: this is its last report, and may no longer be true\.$/m);
    const offlineJson = await svc(alice, ['deployments', 'status', DEVICE, '--json']);
    expect(offlineJson.code).toBe(1);
    expect(JSON.parse(offlineJson.stdout)).toMatchObject({ deployment_id: ids.clone, online: false, stale: true, reported_at: expect.any(String) });
    expect(Date.parse(JSON.parse(offlineJson.stdout).reported_at)).toBeGreaterThanOrEqual(Date.parse(lastReport!));

    expect(await httpText(ports.web2)).toBeUndefined(); // the jobs stop with the runtime
    const late = project.write('late.yaml', singleJob(loopJob(project, 'late')));
    expect(await svcJson(alice, ['deploy', DEVICE, late])).toEqual({ status: 'deployed', deployment_id: ids.clone });
    expect((await svcJson<Deployment>(alice, ['deployments', 'show', DEVICE])).jobs.map((job) => job.id)).toEqual(['web', 'late']);

    await startRuntime();
    await until('the late job running', () => project.pid('late'));
    await until('the status with both jobs', async () => {
      const status = await deploymentStatus();
      return status.status === 'running' && status.jobs.map((job) => job.id).join() === 'web,late';
    });
    expect(await httpText(ports.web2)).toBe('v2\n');
  });

  it('runs the jobs again from the stored state when the runtime restarts while the server is down', async () => {
    const before = project.pid('late')!;
    serverUp = false;
    await fleet.stopServer();
    await stopRuntime();
    expect(processRunning(before)).toBe(false);

    runtime = startRuntimeProcess(['run'], runtimeEnv);
    await until('web answering without a server', async () => (await httpText(ports.web2)) === 'v2\n');
    await until('late running again', () => project.pid('late') !== before && project.pid('late'));

    await fleet.startServer();
    serverUp = true;
    await runtime.waitForLog('deployment channel open');
    await statusIs('running');
    expect((await svc(alice, ['deployments', 'status', DEVICE])).code).toBe(0);
  });
});
