/**
 * Deployments over REST against the real server (docs/deployments.md): every route, the
 * at-most-one-active rule under concurrent activations, removing the active deployment, deploy
 * bodies (schema errors naming the field, 413), authorization (viewers read, editors change,
 * strangers see nothing), audit entries, [Batch] answers, and a removed device's deployments.
 * The device stays offline here: changes are stored and wait for it (the channel suite sends them).
 * Operations and routes are called by name through the SDK; raw calls remain where the REST
 * contract itself is the point (201 Created, malformed or missing bodies).
 */
import { DEPLOY_LIMITS, Deployment } from '@svc/common';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { expectError, expectRefused } from './fixtures/expect-error';
import { registerDevice, TestServer } from './fixtures/test-server';
import { FleetUser, OperationClient, useFleet } from './fixtures/fleet';
import { attemptOf } from './fixtures/operation-client';

const OWNER = 'owner@deploy.test';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('deployments API', () => {
  const fleet = useFleet({});
  let server: TestServer;
  let owner: FleetUser;
  let editor: FleetUser;
  let viewer: FleetUser;
  let stranger: FleetUser;
  let devices = 0;

  async function freshDevice(): Promise<string> {
    const id = `dep-${++devices}`;
    await registerDevice(server, id, `user:${OWNER}`, owner.caller);
    await owner.run('device_access_add', { device: id, email_or_org_id: 'editor@deploy.test', role: 'editor' });
    await owner.run('device_access_add', { device: id, email_or_org_id: 'viewer@deploy.test', role: 'viewer' });
    return id;
  }

  /** Listings are oldest first: each creation a second after the last on the server's (manual) clock. */
  async function create(device: string, active = false, caller: OperationClient = owner): Promise<Deployment> {
    server.clock.advance(1000);
    const created = await caller.run('device_deployment_new', { device, active });
    expect(created).toEqual(expect.objectContaining({ active }));
    return created;
  }
  const deploy = (device: string, body: unknown, caller: OperationClient = owner) => caller.route('device_deploy.jobs', { device }, body);
  const activate = (device: string, id: string, caller: OperationClient = owner) => caller.run('device_deployment_activate', { device, deployment_id: id });
  const show = (device: string, deploymentId?: string) => owner.run('device_deployment_show', { device, deployment_id: deploymentId });
  const clone = (device: string, deploymentId: string, active?: boolean) => owner.run('device_deployment_clone', { device, deployment_id: deploymentId, active });
  const undeploy = (device: string, job: string, deploymentId?: string) => owner.run('device_undeploy', { device, job_id: job, deployment_id: deploymentId });
  const remove = (device: string, deploymentId: string) => owner.run('device_deployment_rm', { device, deployment_id: deploymentId });
  const list = async (device: string): Promise<Deployment[]> => ((await owner.run('device_deployment_list', { device })) as { deployments: Deployment[] }).deployments;
  const activeOf = async (device: string) => (await owner.run('device_deployment_active', { device })).active_deployment_id;

  beforeAll(async () => {
    server = fleet.server;
    [owner, editor, viewer, stranger] = await Promise.all(['owner', 'editor', 'viewer', 'stranger'].map((who) => fleet.as(`${who}@deploy.test`)));
  });

  it('serves every route: new, show, active, activate, deploy, status, clone, list, undeploy, rm', async () => {
    const device = await freshDevice();
    server.clock.advance(1000);
    // Raw: the REST contract's 201 Created (here and for the clone below), which the SDK does not surface.
    const created = await server.api.post(`/devices/${device}/deployments`, { active: false }, owner.caller);
    expect([created.status, created.body]).toEqual([201, expect.objectContaining({ active: false })]);
    const first: Deployment = created.body;
    expect(first).toEqual({ id: expect.any(String), active: false, jobs: [], created_at: expect.any(String), updated_at: expect.any(String) });
    await expectRefused(owner.run('device_deployment_active', { device }), 404, 'NO_ACTIVE_DEPLOYMENT', 'No active deployment');
    await expectRefused(show(device), 404, 'NO_ACTIVE_DEPLOYMENT');
    await expectRefused(owner.run('device_deployment_status', { device }), 404, 'NO_ACTIVE_DEPLOYMENT');
    expect(await show(device, first.id)).toEqual(first);

    expect(await activate(device, first.id)).toEqual({ status: 'activated' });
    expect(await activeOf(device)).toBe(first.id);
    expect(await deploy(device, deployRequest([serviceJob('web')]))).toEqual({ status: 'deployed', deployment_id: first.id });
    const web2 = serviceJob('web', { env: { PORT: '8081' } });
    await deploy(device, deployRequest([serviceJob('db'), web2], { name: 'edge stack' }));
    const shown = await show(device);
    expect(shown).toMatchObject({ id: first.id, active: true, name: 'edge stack', jobs: [web2, serviceJob('db')] });

    expect(await owner.run('device_deployment_status', { device })).toEqual({
      deployment_id: first.id,
      status: 'pending',
      jobs: [
        { id: 'web', status: 'pending', health: 'unknown' },
        { id: 'db', status: 'pending', health: 'unknown' },
      ],
      reported_at: null,
      // The device never connected: offline, so what this says may not be true.
      online: false,
      stale: true,
    });

    server.clock.advance(1000);
    const copy = await server.api.post(`/devices/${device}/deployments/${first.id}/clone`, {}, owner.caller);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ active: false, name: 'edge stack', jobs: shown.jobs });
    expect(copy.body.id).not.toBe(first.id);
    expect((await list(device)).map((d) => [d.id, d.active])).toEqual([[first.id, true], [copy.body.id, false]]);

    expect(await undeploy(device, 'db', copy.body.id)).toEqual({ status: 'undeployed' });
    expect((await show(device, copy.body.id)).jobs).toEqual([web2]);
    expect(await undeploy(device, 'db')).toEqual({ status: 'undeployed' });
    expect((await show(device)).jobs).toEqual([web2]);

    expect(await remove(device, copy.body.id)).toEqual({ status: 'removed' });
    expect((await list(device)).map((d) => d.id)).toEqual([first.id]);
  });

  it('deploys into a new active deployment when the device has none, and creates active ones on request', async () => {
    const device = await freshDevice();
    const deployed = await deploy(device, deployRequest([serviceJob('web')]));
    expect(deployed).toEqual({ status: 'deployed', deployment_id: expect.any(String) });
    expect(await activeOf(device)).toBe(deployed.deployment_id);
    const next = await create(device, true);
    expect(await activeOf(device)).toBe(next.id);
    expect((await list(device)).map((d) => [d.id, d.active])).toEqual([[deployed.deployment_id, false], [next.id, true]]);
    const cloned = await clone(device, deployed.deployment_id, true);
    expect(cloned).toMatchObject({ active: true, jobs: [serviceJob('web')] });
    expect(await activeOf(device)).toBe(cloned.id);
  });

  it('replaces the jobs and the rollback policy in replace mode; merges keep the policy', async () => {
    const device = await freshDevice();
    const rollback = { on_health_failure: 'any' as const, stabilization_period_secs: 30 };
    const { deployment_id: id } = await deploy(device, deployRequest([serviceJob('a'), serviceJob('b')], { mode: 'replace', rollback }));
    await deploy(device, deployRequest([serviceJob('c')]));
    expect(await show(device)).toMatchObject({ id, rollback, jobs: [serviceJob('a'), serviceJob('b'), serviceJob('c')] });
    await deploy(device, deployRequest([serviceJob('d')], { mode: 'replace', deployment_id: id }));
    const shown = await show(device);
    expect(shown.jobs).toEqual([serviceJob('d')]);
    expect(shown).not.toHaveProperty('rollback');
  });

  it('refuses to remove the active deployment (409) and removes it once another is active', async () => {
    const device = await freshDevice();
    const a = await create(device, true);
    const b = await create(device);
    await expectRefused(remove(device, a.id), 409, 'CONFLICT', /is active; activate another deployment first/);
    expect(await activeOf(device)).toBe(a.id);
    await activate(device, b.id);
    await remove(device, a.id);
    expect((await list(device)).map((d) => [d.id, d.active])).toEqual([[b.id, true]]);
  });

  it('answers unknown deployments and jobs with 404 and malformed ids with 400', async () => {
    const device = await freshDevice();
    const a = await create(device, true);
    await expectRefused(show(device, MISSING), 404, 'NOT_FOUND', `Deployment ${MISSING} not found`);
    await expectRefused(activate(device, MISSING), 404, 'NOT_FOUND');
    await expectRefused(remove(device, MISSING), 404, 'NOT_FOUND');
    await expectRefused(clone(device, MISSING), 404, 'NOT_FOUND');
    await expectRefused(deploy(device, deployRequest([serviceJob('x')], { deployment_id: MISSING })), 404, 'NOT_FOUND');
    await expectRefused(undeploy(device, 'nope'), 404, 'NOT_FOUND', `Job nope not found in deployment ${a.id}`);
    await expectRefused(activate(device, 'bad id'), 400, 'INVALID_INPUT', /deployment_id must be a deployment id/);
    await expectRefused(undeploy(device, 'Bad_Job'), 400, 'INVALID_INPUT', /job_id/);
    await expectRefused(show(device, 'a b'), 400, 'INVALID_INPUT', /deployment_id/);
    await expectRefused(owner.run('device_deployment_new', { device, active: 'yes' }), 400, 'INVALID_INPUT', /active/);
    // A deployment of another device is not found through this one, even by its exact id.
    const other = await freshDevice();
    await expectRefused(activate(other, a.id), 404, 'NOT_FOUND');
  });

  it('keeps exactly one deployment active under 20 concurrent activations, and never shows two', async () => {
    const device = await freshDevice();
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await create(device)).id);
    for (let round = 0; round < 2; round++) {
      const listings: Promise<Deployment[]>[] = [];
      const activations = ids.map(async (id, i) => {
        if (i % 4 === 0) listings.push(list(device));
        return attemptOf(activate(device, id));
      });
      const answers = await Promise.all(activations);
      expect(answers.map((answer) => answer.ok)).toEqual(ids.map(() => true));
      for (const listing of await Promise.all(listings)) expect(listing.filter((d) => d.active).length).toBeLessThanOrEqual(1);
      const after = await list(device);
      const active = after.filter((d) => d.active);
      expect(active).toHaveLength(1);
      expect(await activeOf(device)).toBe(active[0].id);
    }
  });

  it('loses no job when deploys into the active deployment run concurrently', async () => {
    const device = await freshDevice();
    await create(device, true);
    const names = Array.from({ length: 12 }, (_, i) => `job-${i}`);
    const answers = await Promise.all(names.map((name) => attemptOf(deploy(device, deployRequest([serviceJob(name)])))));
    expect(answers.map((answer) => answer.ok)).toEqual(names.map(() => true));
    const jobs = (await show(device)).jobs as { id: string }[];
    expect(jobs.map((job) => job.id).sort()).toEqual([...names].sort());
  });

  describe('deploy bodies', () => {
    let device: string;
    beforeAll(async () => {
      device = await freshDevice();
    });

    it.each<[string, unknown, RegExp]>([
      ['no mode', { jobs: [serviceJob('web')] }, /^Invalid deploy request: mode: required field missing$/],
      ['an unknown mode', { mode: 'upsert', jobs: [serviceJob('web')] }, /mode: "upsert" is not one of merge, replace/],
      ['a bad duration', deployRequest([serviceJob('web', { steps: [{ name: 'serve', run: 'x', timeout: '10 minutes' }] })]), /jobs\[0\]\.steps\[0\]\.timeout: "10 minutes" is not a duration/],
      ['an unknown job field', deployRequest([{ ...serviceJob('web'), bogus: 1 } as never]), /jobs\[0\]\.bogus: unknown field/],
      ['a missing job field', deployRequest([{ ...serviceJob('web'), restart: undefined } as never]), /jobs\[0\]\.restart: required field missing/],
      ['a bad job id', deployRequest([serviceJob('Web App')]), /jobs\[0\]\.id: "Web App" is not an id/],
      ['duplicate job ids', deployRequest([serviceJob('web'), serviceJob('web')]), /jobs\[1\]\.id: duplicate job id "web"/],
      ['a file path leaving the workdir', deployRequest([serviceJob('web', { files: { '../etc/passwd': 'x' } })]), /jobs\[0\]\.files\["\.\.\/etc\/passwd"\]/],
      ['no jobs to merge', deployRequest([]), /jobs: must have at least one job/],
      ['an array', [serviceJob('web')], /Invalid deploy request: must be object/],
    ])('refuses %s with 400 naming the field', async (_label, body, message) => {
      await expectRefused(deploy(device, body), 400, 'INVALID_INPUT', message);
    });

    it('refuses malformed JSON, a missing body and an over-long body', async () => {
      // Raw: bodies no client of the SDK sends (the REST contract).
      expectError(await server.api.call('POST', `/devices/${device}/deployments/jobs`, owner.caller, undefined, '{"mode":'), 400, 'INVALID_INPUT', /not valid JSON/);
      expectError(await server.api.call('POST', `/devices/${device}/deployments/jobs`, owner.caller), 400, 'INVALID_INPUT', /body required/);
      const huge = deployRequest([serviceJob('web', { files: { 'big.bin': 'x'.repeat(DEPLOY_LIMITS.maxRequestBytes) } })]);
      await expectRefused(deploy(device, huge), 413, 'PAYLOAD_TOO_LARGE', /too large/);
      expect((await server.api.get('/health')).status).toBe(200);
    });

    it('accepts files beyond the 64 KiB of other routes, up to the deploy limits', async () => {
      const body = deployRequest([serviceJob('web', { files: { 'site/index.html': 'x'.repeat(300 * 1024) } })]);
      await deploy(device, body);
      const tooMany = deployRequest(Array.from({ length: DEPLOY_LIMITS.maxJobs }, (_, i) => serviceJob(`more-${i}`)));
      await expectRefused(deploy(device, tooMany), 409, 'CONFLICT', /would hold 65 jobs/);
    });
  });

  describe('authorization', () => {
    let device: string;
    let deploymentId: string;
    beforeAll(async () => {
      device = await freshDevice();
      deploymentId = (await create(device, true)).id;
    });

    type Call = (device: string, deploymentId: string, caller: OperationClient) => Promise<unknown>;
    const READS: [string, Call][] = [
      ['list', (d, _id, c) => c.run('device_deployment_list', { device: d })],
      ['status', (d, _id, c) => c.run('device_deployment_status', { device: d })],
      ['show', (d, _id, c) => c.run('device_deployment_show', { device: d })],
      ['active', (d, _id, c) => c.run('device_deployment_active', { device: d })],
    ];
    // The job log answers text: its refusals are JSON, all these calls meet.
    const logs = (device: string, caller: OperationClient, query: Record<string, unknown> = {}) => caller.route('device_deploy.job_logs', { device, job_id: 'web', ...query });
    const CHANGES: [string, Call][] = [
      ['new', (d, _id, c) => c.run('device_deployment_new', { device: d })],
      ['activate', (d, id, c) => activate(d, id, c)],
      ['clone', (d, id, c) => c.run('device_deployment_clone', { device: d, deployment_id: id })],
      ['deploy', (d, _id, c) => deploy(d, deployRequest([serviceJob('web')]), c)],
      ['undeploy', (d, _id, c) => c.run('device_undeploy', { device: d, job_id: 'web' })],
      ['rm', (d, _id, c) => c.run('device_deployment_rm', { device: d, deployment_id: MISSING })],
      ['logs', (d, _id, c) => logs(d, c)],
    ];

    it.each(READS)('lets a viewer %s', async (_name, call) => {
      await call(device, deploymentId, viewer);
    });

    it.each(CHANGES)('refuses %s to a viewer (403) and lets an editor reach it', async (_name, call) => {
      await expectRefused(call(device, deploymentId, viewer), 403, 'FORBIDDEN', /does not allow device:deploy/);
      const answer = await attemptOf(call(device, deploymentId, editor));
      expect(answer.ok || answer.error.status).not.toBe(403);
    });

    it.each([...READS, ...CHANGES])('answers %s for a stranger exactly as for a missing device (404)', async (_name, call) => {
      await expectRefused(call(device, deploymentId, stranger), 404, 'DEVICE_NOT_FOUND', 'Device not found');
      await expectRefused(call('no-such-device', deploymentId, owner), 404, 'DEVICE_NOT_FOUND', 'Device not found');
    });

    it.each([...READS, ...CHANGES])('requires authentication for %s (401)', async (_name, call) => {
      await expectRefused(call(device, deploymentId, fleet.client({})), 401, 'UNAUTHENTICATED');
      await expectRefused(call(device, deploymentId, fleet.admin), 403, 'FORBIDDEN');
    });

    it('answers job logs of an offline device with 503', async () => {
      await expectRefused(logs(device, owner, { follow: true, tail: 5 }), 503, 'DEVICE_OFFLINE');
      await expectRefused(logs(device, owner, { tail: 99999 }), 400, 'INVALID_INPUT', /tail/);
      await expectRefused(logs(device, owner, { follow: 'yes' }), 400, 'INVALID_INPUT', /follow/);
    });
  });

  it('audits every change, naming jobs but never file contents', async () => {
    const device = await freshDevice();
    // Entries are listed newest first by timestamp: one tick of the server's clock per change.
    const step = async <T>(change: Promise<T>): Promise<T> => {
      const answer = await change;
      server.clock.advance(1000);
      return answer;
    };
    const a = await step(create(device));
    await step(activate(device, a.id));
    await step(deploy(device, deployRequest([serviceJob('web', { files: { 'secret.env': 'TOKEN=TOPSECRET-VALUE' } }), serviceJob('db')])));
    const b = await step(clone(device, a.id));
    await step(undeploy(device, 'db', b.id));
    await step(remove(device, b.id));
    const logs = (await owner.route('device_audit_logs.one', { device, max: 50 })).logs as { user: string; action: string; details: string }[];
    const deployments = logs.filter((e) => e.action.startsWith('device.deployment_')).reverse();
    expect(deployments.map((e) => [e.user, e.action, e.details])).toEqual([
      [OWNER, 'device.deployment_created', `created deployment ${a.id}`],
      [OWNER, 'device.deployment_activated', `activated deployment ${a.id} (previously none)`],
      [OWNER, 'device.deployment_jobs_deployed', `deployed job(s) web, db into deployment ${a.id}`],
      [OWNER, 'device.deployment_cloned', `cloned deployment ${a.id} as ${b.id} (2 jobs)`],
      [OWNER, 'device.deployment_job_undeployed', `undeployed job db from deployment ${b.id}`],
      [OWNER, 'device.deployment_removed', `removed deployment ${b.id}`],
    ]);
    expect(JSON.stringify(logs)).not.toContain('TOPSECRET');
  });

  it('answers [Batch] list and status per device, with an error for a device without an active deployment', async () => {
    const withActive = await freshDevice();
    const without = await freshDevice();
    const a = await create(withActive, true);
    await create(without);
    const listed = (await viewer.run('device_deployment_list', { devices: [withActive, without, 'nope'] })) as { results: unknown[] };
    expect(listed.results).toEqual([
      { device: withActive, deployments: [expect.objectContaining({ id: a.id, active: true })] },
      { device: without, deployments: [expect.objectContaining({ active: false })] },
      { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
    ]);
    const statuses = (await viewer.run('device_deployment_status', { devices: [withActive, without, 'nope'] })) as { results: unknown[] };
    expect(statuses.results).toEqual([
      { device: withActive, deployment_id: a.id, status: 'pending', jobs: [], reported_at: null, online: false, stale: true },
      { device: without, error: 'No active deployment', code: 'NO_ACTIVE_DEPLOYMENT' },
      { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
    ]);
    const named = (await viewer.run('device_deployment_status', { devices: [withActive, without], deployment_id: a.id })) as { results: unknown[] };
    expect(named.results[1]).toEqual({ device: without, error: `Deployment ${a.id} not found`, code: 'NOT_FOUND' });
  });

  it('removes the deployments of a removed device: the same id registered again starts empty', async () => {
    const device = await freshDevice();
    await deploy(device, deployRequest([serviceJob('web')]));
    await owner.run('devices_reject', { device });
    await registerDevice(server, device, `user:${OWNER}`, owner.caller);
    expect(await list(device)).toEqual([]);
    await expectRefused(owner.run('device_deployment_active', { device }), 404, 'NO_ACTIVE_DEPLOYMENT');
  });
});
