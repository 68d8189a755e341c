/**
 * The server half of the deployment channel (docs/protocol.md, "Deployments") with the tunnel
 * stub as the runtime: the desired state on connect and after each change (also one committed by
 * another replica, through the head poll), reports stored and answered by device_deployment_status,
 * hostile lines dropped without losing the channel, a rollback followed, reports expiring. (A job's
 * log: deployments-api-logs.e2e-spec.ts.) Operations are called by name through the SDK.
 */
import { DeploymentStatusReport } from '@svc/common';
import { DAY_MS } from '../apps/server/src/common/clock';
import { RetentionJob } from '../apps/server/src/storage/retention.job';
import { DeploymentsRepository } from '../apps/server/src/deployments/deployments.repository';
import { Storage } from '../apps/server/src/storage/storage.port';
import { REPORTS } from '../apps/server/src/storage/records';
import { ChannelEnd, deployRequest, runningReport, serviceJob } from './fixtures/deployments';
import { expectRefused } from './fixtures/expect-error';
import { FleetUser, useFleet } from './fixtures/fleet';
import { registerDevice, TestServer } from './fixtures/test-server';
import { connectRuntimeStub, RuntimeStub } from './fixtures/tunnel-runtime-stub';
import { eventually } from './fixtures/eventually';

const OWNER = 'owner@channel.test';

describe('deployment channel', () => {
  // Declared before the fleet, so that it runs first: the stubs leave before the server stops.
  afterAll(() => {
    for (const stub of stubs) stub.close();
  });
  const fleet = useFleet({ env: { REPORT_RETENTION_DAYS: '2' }, relay: true, users: { owner: OWNER } });
  let server: TestServer;
  let owner: FleetUser;
  let devices = 0;
  const stubs: RuntimeStub[] = [];

  async function device(): Promise<{ id: string; apiKey: string }> {
    const id = `chan-${++devices}`;
    return { id, apiKey: await registerDevice(server, id, `user:${OWNER}`, owner.caller) };
  }

  async function connect(apiKey: string, handlers: Parameters<typeof connectRuntimeStub>[0]['handlers']): Promise<RuntimeStub> {
    const stub = await connectRuntimeStub({ port: server.tunnel!.port, ca: server.tunnel!.caFile, apiKey, handlers });
    expect(stub.hello.ok).toBe(true);
    stubs.push(stub);
    return stub;
  }

  const deploy = (id: string, body: unknown) => owner.route('device_deploy.jobs', { device: id }, body);
  const status = async (id: string, deploymentId?: string): Promise<any> => owner.run('device_deployment_status', { device: id, deployment_id: deploymentId });
  const activeOf = async (id: string) => (await owner.run('device_deployment_active', { device: id })).active_deployment_id;
  const create = async (id: string, active?: boolean) => (await owner.run('device_deployment_new', { device: id, active })).id;
  const clone = async (id: string, deploymentId: string) => (await owner.run('device_deployment_clone', { device: id, deployment_id: deploymentId, active: true })).id;
  const auditLogs = async (id: string) => (await owner.route('device_audit_logs.one', { device: id, max: 20 })).logs;

  beforeAll(() => {
    server = fleet.server;
    owner = fleet.user('owner');
  });

  it('sends a device without deployments an empty desired state on connect', async () => {
    const { apiKey } = await device();
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    expect(await channel.next()).toEqual({ revision: 0, deployment: null });
  });

  it('sends what was deployed while the device was offline on connect, then every change of the active deployment', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: first } = (await deploy(id, deployRequest([serviceJob('web')])));
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    const initial = await channel.next();
    expect(initial.deployment).toMatchObject({ id: first, active: true, jobs: [serviceJob('web')] });
    expect(initial.revision).toBeGreaterThan(0);

    await deploy(id, deployRequest([serviceJob('db')]));
    const edited = await channel.next((d) => d.revision > initial.revision);
    expect(edited.deployment?.jobs.map((job) => job.id)).toEqual(['web', 'db']);

    const second = await create(id, true);
    const switched = await channel.next((d) => d.revision > edited.revision);
    expect(switched.deployment).toMatchObject({ id: second, jobs: [] });

    // A change to a deployment that is not active is not the device's business: the next desired
    // state the channel gets (it is in order) is that of the next change to the active one.
    const seen = channel.desired.length;
    await owner.run('device_undeploy', { device: id, job_id: 'db', deployment_id: first });
    await deploy(id, deployRequest([serviceJob('cache')]));
    await channel.next((d) => d.deployment?.id === second && d.deployment?.jobs.some((job) => job.id === 'cache') === true, seen);
    expect(channel.desired.length).toBe(seen + 1);
    expect(channel.desired.map((d) => d.revision)).toEqual([...channel.desired.map((d) => d.revision)].sort((a, b) => a - b));
  });

  it('sends a change committed by another replica through the head poll', async () => {
    const { id, apiKey } = await device();
    const a = await create(id, true);
    const b = await create(id);
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    expect((await channel.next()).deployment?.id).toBe(a);
    // Written straight to storage, as another replica would: nobody in this process is told.
    const repository = server.app.get(DeploymentsRepository);
    const head = await repository.head(id);
    await repository.moveHead(head, { activeDeploymentId: b, revision: head.revision + 1, lastRollback: null });
    const moved = await channel.next((d) => d.deployment?.id === b);
    expect(moved.revision).toBe(head.revision + 1);
  });

  it('stores reports and answers device_deployment_status with the newest', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: deploymentId } = (await deploy(id, deployRequest([serviceJob('web'), serviceJob('db')])));
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    await channel.next();
    expect(await status(id)).toMatchObject({ status: 'pending', reported_at: null });

    const report = runningReport(deploymentId, ['web', 'db'], { jobs: [
      { id: 'web', status: 'running', health: 'healthy', restarts: 2, log_tail: ['listening on :8080', 'colour \u001b[31mred'] },
      { id: 'db', status: 'restarting', health: 'unhealthy', reason: 'exited with 1', exit_code: 1 },
    ] });
    channel.raw(JSON.stringify({ type: 'report', report: { ...report, from_a_newer_runtime: true } }) + '\n');
    await eventually('the report', async () => (await status(id)).reported_at !== null);
    expect(await status(id)).toEqual({
      ...report,
      jobs: [{ ...report.jobs[0], log_tail: ['listening on :8080', 'colour \\u001b[31mred'] }, report.jobs[1]],
      online: true,
      stale: false,
    });
    const single = (await owner.run('device_deployment_status', { devices: [id] })) as { results: unknown[] };
    expect(single.results[0]).toMatchObject({ device: id, deployment_id: deploymentId, status: 'running' });
  });

  it('drops oversized, malformed and made-up lines and keeps the channel', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: deploymentId } = (await deploy(id, deployRequest([serviceJob('web')])));
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    await channel.next();
    channel.raw(`{"type":"report","report":${JSON.stringify('x'.repeat(1536 * 1024))}}\n`);
    channel.raw('this is not JSON\n');
    channel.raw(JSON.stringify({ type: 'report', report: { ...runningReport(deploymentId, ['web']), status: 'exploded' } }) + '\n');
    channel.raw(JSON.stringify({ type: 'report', report: { ...runningReport(deploymentId, ['web']), jobs: Array(100).fill({ id: 'web', status: 'running', health: 'healthy' }) } }) + '\n');
    channel.report(runningReport('00000000-0000-4000-8000-000000000000', ['web']));
    channel.raw(JSON.stringify({ type: 'hello-from-the-future' }) + '\n');
    channel.report(runningReport(deploymentId, ['web'], { status: 'degraded' }));
    await eventually('the valid report', async () => (await status(id)).reported_at !== null);
    expect((await status(id)).status).toBe('degraded');
    const stored = await server.app.get(Storage).collection(REPORTS).find({ deviceId: id });
    expect(stored.map((r) => r.subject)).toEqual([deploymentId]);
    // Still the same channel: a change still reaches it.
    const before = channel.desired.length;
    await deploy(id, deployRequest([serviceJob('db')]));
    await channel.until(() => channel.desired.length > before);
    expect(channel.opened).toHaveLength(1);
  });

  it('follows a rollback of the active deployment: the head goes back, the device gets it, the audit says why', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: good } = (await deploy(id, deployRequest([serviceJob('web')])));
    const bad = await clone(id, good);
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    const sent = await channel.next((d) => d.deployment?.id === bad);

    const rolledBack: DeploymentStatusReport = {
      ...runningReport(bad, ['web'], { status: 'rolled_back' }),
      jobs: [{ id: 'web', status: 'failed', health: 'unhealthy' }],
      rollback: { reason: 'web not healthy within 30 s\u001b[2J', to_deployment_id: good },
    };
    channel.report(rolledBack);
    const back = await channel.next((d) => d.revision > sent.revision);
    expect(back.deployment?.id).toBe(good);
    expect(await activeOf(id)).toBe(good);
    expect(await status(id, bad)).toMatchObject({ status: 'rolled_back', rollback: { to_deployment_id: good } });

    const logs = (await auditLogs(id)) as { user: string; action: string; details: string }[];
    expect(logs.filter((e) => e.action === 'device.deployment_rolled_back')).toEqual([
      expect.objectContaining({ user: `device:${id}`, details: `device rolled back deployment ${bad} to ${good}: web not healthy within 30 s\\u001b[2J` }),
    ]);

    // The default status (the active deployment) says which rollback made it active, why and when.
    expect(await status(id)).toMatchObject({ deployment_id: good, rolled_back_from: { deployment_id: bad, reason: 'web not healthy within 30 s\\u001b[2J', at: expect.any(String) } });
    expect(await status(id, bad)).not.toHaveProperty('rolled_back_from');

    // The same report again (a runtime repeats its state on reconnect) changes nothing. The channel
    // takes reports in order: once a report on the good one after it is stored, the repeat was handled.
    channel.report({ ...rolledBack, reported_at: new Date().toISOString() });
    channel.report(runningReport(good, ['web']));
    await eventually('the report after the repeat', async () => (await status(id, good)).status === 'running');
    expect(await activeOf(id)).toBe(good);
    expect(channel.desired.filter((d) => d.revision > back.revision)).toEqual([]);

    // A change of the active deployment ends the notice.
    await deploy(id, deployRequest([serviceJob('web', { env: { FIXED: '1' } })]));
    expect(await status(id)).not.toHaveProperty('rolled_back_from');
  });

  it('answers the deployment rolled back when a rollback left no active deployment', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: only } = (await deploy(id, deployRequest([serviceJob('web')])));
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    const sent = await channel.next((d) => d.deployment?.id === only);
    channel.report({ ...runningReport(only, ['web'], { status: 'rolled_back' }), rollback: { reason: 'web not healthy', to_deployment_id: null } });
    expect((await channel.next((d) => d.revision > sent.revision)).deployment).toBeNull();
    await expectRefused(owner.run('device_deployment_active', { device: id }), 404);
    expect(await status(id)).toMatchObject({ deployment_id: only, status: 'rolled_back', rollback: { reason: 'web not healthy', to_deployment_id: null }, online: true, stale: false });
  });

  it('keeps the active deployment when the device rolled back to one that no longer exists, and audits it once', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: old } = (await deploy(id, deployRequest([serviceJob('web')])));
    const bad = await clone(id, old);
    await owner.run('device_deployment_rm', { device: id, deployment_id: old });
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    await channel.next((d) => d.deployment?.id === bad);
    const report = (reason: string): DeploymentStatusReport => ({ ...runningReport(bad, ['web'], { status: 'rolled_back' }), rollback: { reason, to_deployment_id: old } });
    channel.report(report('not healthy'));
    await eventually('the rollback report', async () => (await status(id)).status === 'rolled_back');
    channel.report(report('still not healthy'));
    await eventually('the second report', async () => (await status(id)).rollback?.reason === 'still not healthy');
    expect(await activeOf(id)).toBe(bad);
    const logs = (await auditLogs(id)) as { action: string; details: string }[];
    expect(logs.filter((e) => e.action === 'device.deployment_rolled_back').map((e) => e.details)).toEqual([
      `device rolled back deployment ${bad} to ${old}, which no longer exists; ${bad} stays active: not healthy`,
    ]);
  });

  it('stores a repeated report once (runtimes repeat their state every minute), and a repeat\'s new log tails in its place', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: deploymentId } = (await deploy(id, deployRequest([serviceJob('web')])));
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    await channel.next();
    const stored = () => server.app.get(Storage).collection(REPORTS).count({ deviceId: id });
    for (let i = 0; i < 4; i++) {
      const reportedAt = new Date(Date.now() + i * 1000).toISOString();
      channel.report(runningReport(deploymentId, ['web'], { jobs: [{ id: 'web', status: 'running', health: 'healthy', log_tail: [`line ${i}`] }], reported_at: reportedAt }));
      await eventually(`report ${i} heard`, async () => (await status(id)).reported_at === reportedAt);
    }
    await eventually('the first report', async () => (await stored()) === 1);
    // Stored once, but heard every time: the status says when the device last reported. A job's
    // output after its last change reaches the server only in such a repeat: its log tail replaces
    // the stored one (a status must not show the first minute's output for half an hour).
    const logTail = async () => (await status(id)).jobs[0].log_tail;
    await eventually('the newest log tail', async () => JSON.stringify(await logTail()) === JSON.stringify(['line 3']), { describe: async () => JSON.stringify(await logTail()) });
    const repeat = runningReport(deploymentId, ['web'], { jobs: [{ id: 'web', status: 'running', health: 'healthy', log_tail: ['line 4'] }], reported_at: new Date(Date.now() + 60_000).toISOString() });
    channel.report(repeat);
    await eventually('the repeat, its time and log tail', async () => (await status(id)).reported_at === repeat.reported_at && (await logTail())?.[0] === 'line 4');
    expect(await stored()).toBe(1);
    channel.report(runningReport(deploymentId, ['web'], { status: 'degraded' }));
    await eventually('the changed report', async () => (await stored()) === 2);
    // A new desired state: the runtime reports afresh, and that report is stored even when unchanged.
    await deploy(id, deployRequest([serviceJob('web', { env: { A: '1' } })]));
    await channel.next((d) => d.deployment?.jobs[0].env.A === '1');
    channel.report(runningReport(deploymentId, ['web'], { status: 'degraded' }));
    await eventually('the report after the change', async () => (await stored()) === 3);
  });

  it('opens a new channel on reconnect, and leaves a runtime without the channel alone', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: deploymentId } = (await deploy(id, deployRequest([serviceJob('web')])));
    const old = await connect(apiKey, {});
    await eventually('the server asking for the deployment channel', () => old.refused.some((path) => path.endsWith('/deployments')));
    expect(await owner.run('device_exec', { device: id, command: ['true'] })).toMatchObject({ exit_code: 0 });
    old.close();
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    expect((await channel.next()).deployment?.id).toBe(deploymentId);
  });

  it('expires reports after REPORT_RETENTION_DAYS: the status falls back to pending and the purge removes them', async () => {
    const { id, apiKey } = await device();
    const { deployment_id: deploymentId } = (await deploy(id, deployRequest([serviceJob('web')])));
    const channel = new ChannelEnd();
    await connect(apiKey, { deployments: channel.handler });
    await channel.next();
    channel.report(runningReport(deploymentId, ['web']));
    await eventually('the report', async () => (await status(id)).status === 'running');
    server.clock.advance(DAY_MS);
    expect((await status(id)).status).toBe('running');
    server.clock.advance(DAY_MS + 1000);
    expect(await status(id)).toMatchObject({ status: 'pending', reported_at: null });
    expect((await server.app.get(RetentionJob).run()).reports).toBeGreaterThanOrEqual(1);
    expect(await server.app.get(Storage).collection(REPORTS).count({ deviceId: id })).toBe(0);
  });
});
