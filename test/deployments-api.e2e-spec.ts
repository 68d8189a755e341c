/**
 * Deployments over REST against the real server (docs/deployments.md): every route, the
 * at-most-one-active rule under concurrent activations, removing the active deployment, deploy
 * bodies (schema errors naming the field, 413), authorization (viewers read, editors change,
 * strangers see nothing), audit entries, [Batch] answers, and a removed device's deployments.
 * The device stays offline here: changes are stored and wait for it (the channel suite sends them).
 */
import { DEPLOY_LIMITS, Deployment } from '@svc/common';
import type { ApiResponse, Caller } from './fixtures/api-client';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { expectError } from './fixtures/expect-error';
import { registerDevice, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

const OWNER = 'owner@deploy.test';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('deployments API', () => {
  const fleet = useFleet({});
  let server: TestServer;
  let owner: Caller;
  let editor: Caller;
  let viewer: Caller;
  let stranger: Caller;
  let devices = 0;

  async function freshDevice(): Promise<string> {
    const id = `dep-${++devices}`;
    await registerDevice(server, id, `user:${OWNER}`, owner);
    expect((await server.api.post(`/devices/${id}/access`, { email_or_org_id: 'editor@deploy.test', role: 'editor' }, owner)).status).toBe(200);
    expect((await server.api.post(`/devices/${id}/access`, { email_or_org_id: 'viewer@deploy.test', role: 'viewer' }, owner)).status).toBe(200);
    return id;
  }

  /** Listings are oldest first: each creation a second after the last on the server's (manual) clock. */
  async function create(device: string, active = false, caller = owner): Promise<Deployment> {
    server.clock.advance(1000);
    const res = await server.api.post(`/devices/${device}/deployments`, { active }, caller);
    expect([res.status, res.body]).toEqual([201, expect.objectContaining({ active })]);
    return res.body;
  }
  const deploy = (device: string, body: unknown, caller = owner) => server.api.post(`/devices/${device}/deployments/jobs`, body, caller);
  const activate = (device: string, id: string, caller = owner) => server.api.post(`/devices/${device}/deployments/${id}/activate`, undefined, caller);
  const list = async (device: string): Promise<Deployment[]> => (await server.api.post('/devices/deployments/list', { device }, owner)).body.deployments;
  const activeOf = async (device: string) => (await server.api.get(`/devices/${device}/deployments/active`, owner)).body.active_deployment_id;

  beforeAll(async () => {
    server = fleet.server;
    [owner, editor, viewer, stranger] = await Promise.all(['owner', 'editor', 'viewer', 'stranger'].map((who) => server.login(`${who}@deploy.test`)));
  });

  it('serves every route: new, show, active, activate, deploy, status, clone, list, undeploy, rm', async () => {
    const device = await freshDevice();
    const first = await create(device);
    expect(first).toEqual({ id: expect.any(String), active: false, jobs: [], created_at: expect.any(String), updated_at: expect.any(String) });
    expectError(await server.api.get(`/devices/${device}/deployments/active`, owner), 404, 'NO_ACTIVE_DEPLOYMENT', 'No active deployment');
    expectError(await server.api.get(`/devices/${device}/deployment`, owner), 404, 'NO_ACTIVE_DEPLOYMENT');
    expectError(await server.api.post('/devices/deployments/status', { device }, owner), 404, 'NO_ACTIVE_DEPLOYMENT');
    expect((await server.api.get(`/devices/${device}/deployment?deployment_id=${first.id}`, owner)).body).toEqual(first);

    expect((await activate(device, first.id)).body).toEqual({ status: 'activated' });
    expect(await activeOf(device)).toBe(first.id);
    expect((await deploy(device, deployRequest([serviceJob('web')]))).body).toEqual({ status: 'deployed', deployment_id: first.id });
    const web2 = serviceJob('web', { env: { PORT: '8081' } });
    expect((await deploy(device, deployRequest([serviceJob('db'), web2], { name: 'edge stack' }))).status).toBe(200);
    const shown = (await server.api.get(`/devices/${device}/deployment`, owner)).body;
    expect(shown).toMatchObject({ id: first.id, active: true, name: 'edge stack', jobs: [web2, serviceJob('db')] });

    const status = await server.api.post('/devices/deployments/status', { device }, owner);
    expect(status.body).toEqual({
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
    const copy = await server.api.post(`/devices/${device}/deployments/${first.id}/clone`, {}, owner);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ active: false, name: 'edge stack', jobs: shown.jobs });
    expect(copy.body.id).not.toBe(first.id);
    expect((await list(device)).map((d) => [d.id, d.active])).toEqual([[first.id, true], [copy.body.id, false]]);

    expect((await server.api.delete(`/devices/${device}/deployments/jobs/db?deployment_id=${copy.body.id}`, owner)).body).toEqual({ status: 'undeployed' });
    expect((await server.api.get(`/devices/${device}/deployment?deployment_id=${copy.body.id}`, owner)).body.jobs).toEqual([web2]);
    expect((await server.api.delete(`/devices/${device}/deployments/jobs/db`, owner)).body).toEqual({ status: 'undeployed' });
    expect((await server.api.get(`/devices/${device}/deployment`, owner)).body.jobs).toEqual([web2]);

    expect((await server.api.delete(`/devices/${device}/deployments/${copy.body.id}`, owner)).body).toEqual({ status: 'removed' });
    expect((await list(device)).map((d) => d.id)).toEqual([first.id]);
  });

  it('deploys into a new active deployment when the device has none, and creates active ones on request', async () => {
    const device = await freshDevice();
    const res = await deploy(device, deployRequest([serviceJob('web')]));
    expect(res.body).toEqual({ status: 'deployed', deployment_id: expect.any(String) });
    expect(await activeOf(device)).toBe(res.body.deployment_id);
    const next = await create(device, true);
    expect(await activeOf(device)).toBe(next.id);
    expect((await list(device)).map((d) => [d.id, d.active])).toEqual([[res.body.deployment_id, false], [next.id, true]]);
    const cloned = await server.api.post(`/devices/${device}/deployments/${res.body.deployment_id}/clone`, { active: true }, owner);
    expect(cloned.body).toMatchObject({ active: true, jobs: [serviceJob('web')] });
    expect(await activeOf(device)).toBe(cloned.body.id);
  });

  it('replaces the jobs and the rollback policy in replace mode; merges keep the policy', async () => {
    const device = await freshDevice();
    const rollback = { on_health_failure: 'any' as const, stabilization_period_secs: 30 };
    const { deployment_id: id } = (await deploy(device, deployRequest([serviceJob('a'), serviceJob('b')], { mode: 'replace', rollback }))).body;
    await deploy(device, deployRequest([serviceJob('c')]));
    expect((await server.api.get(`/devices/${device}/deployment`, owner)).body).toMatchObject({ id, rollback, jobs: [serviceJob('a'), serviceJob('b'), serviceJob('c')] });
    await deploy(device, deployRequest([serviceJob('d')], { mode: 'replace', deployment_id: id }));
    const shown = (await server.api.get(`/devices/${device}/deployment`, owner)).body;
    expect(shown.jobs).toEqual([serviceJob('d')]);
    expect(shown).not.toHaveProperty('rollback');
  });

  it('refuses to remove the active deployment (409) and removes it once another is active', async () => {
    const device = await freshDevice();
    const a = await create(device, true);
    const b = await create(device);
    expectError(await server.api.delete(`/devices/${device}/deployments/${a.id}`, owner), 409, 'CONFLICT', /is active; activate another deployment first/);
    expect(await activeOf(device)).toBe(a.id);
    await activate(device, b.id);
    expect((await server.api.delete(`/devices/${device}/deployments/${a.id}`, owner)).status).toBe(200);
    expect((await list(device)).map((d) => [d.id, d.active])).toEqual([[b.id, true]]);
  });

  it('answers unknown deployments and jobs with 404 and malformed ids with 400', async () => {
    const device = await freshDevice();
    const a = await create(device, true);
    expectError(await server.api.get(`/devices/${device}/deployment?deployment_id=${MISSING}`, owner), 404, 'NOT_FOUND', `Deployment ${MISSING} not found`);
    expectError(await activate(device, MISSING), 404, 'NOT_FOUND');
    expectError(await server.api.delete(`/devices/${device}/deployments/${MISSING}`, owner), 404, 'NOT_FOUND');
    expectError(await server.api.post(`/devices/${device}/deployments/${MISSING}/clone`, {}, owner), 404, 'NOT_FOUND');
    expectError(await deploy(device, deployRequest([serviceJob('x')], { deployment_id: MISSING })), 404, 'NOT_FOUND');
    expectError(await server.api.delete(`/devices/${device}/deployments/jobs/nope`, owner), 404, 'NOT_FOUND', `Job nope not found in deployment ${a.id}`);
    expectError(await activate(device, 'bad%20id'), 400, 'INVALID_INPUT', /deployment_id must be a deployment id/);
    expectError(await server.api.delete(`/devices/${device}/deployments/jobs/Bad_Job`, owner), 400, 'INVALID_INPUT', /job_id/);
    expectError(await server.api.get(`/devices/${device}/deployment?deployment_id=a%20b`, owner), 400, 'INVALID_INPUT', /deployment_id/);
    expectError(await server.api.post(`/devices/${device}/deployments`, { active: 'yes' }, owner), 400, 'INVALID_INPUT', /active/);
    // A deployment of another device is not found through this one, even by its exact id.
    const other = await freshDevice();
    expectError(await activate(other, a.id), 404, 'NOT_FOUND');
  });

  it('keeps exactly one deployment active under 20 concurrent activations, and never shows two', async () => {
    const device = await freshDevice();
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await create(device)).id);
    for (let round = 0; round < 2; round++) {
      const listings: Promise<Deployment[]>[] = [];
      const activations = ids.map(async (id, i) => {
        if (i % 4 === 0) listings.push(list(device));
        return activate(device, id);
      });
      const answers = await Promise.all(activations);
      expect(answers.map((res) => res.status)).toEqual(ids.map(() => 200));
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
    const answers = await Promise.all(names.map((name) => deploy(device, deployRequest([serviceJob(name)]))));
    expect(answers.map((res) => res.status)).toEqual(names.map(() => 200));
    const jobs = (await server.api.get(`/devices/${device}/deployment`, owner)).body.jobs as { id: string }[];
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
      expectError(await deploy(device, body), 400, 'INVALID_INPUT', message);
    });

    it('refuses malformed JSON, a missing body and an over-long body', async () => {
      expectError(await server.api.call('POST', `/devices/${device}/deployments/jobs`, owner, undefined, '{"mode":'), 400, 'INVALID_INPUT', /not valid JSON/);
      expectError(await server.api.call('POST', `/devices/${device}/deployments/jobs`, owner), 400, 'INVALID_INPUT', /body required/);
      const huge = deployRequest([serviceJob('web', { files: { 'big.bin': 'x'.repeat(DEPLOY_LIMITS.maxRequestBytes) } })]);
      expectError(await deploy(device, huge), 413, 'PAYLOAD_TOO_LARGE', /too large/);
      expect((await server.api.get('/health')).status).toBe(200);
    });

    it('accepts files beyond the 64 KiB of other routes, up to the deploy limits', async () => {
      const body = deployRequest([serviceJob('web', { files: { 'site/index.html': 'x'.repeat(300 * 1024) } })]);
      expect((await deploy(device, body)).status).toBe(200);
      const tooMany = deployRequest(Array.from({ length: DEPLOY_LIMITS.maxJobs }, (_, i) => serviceJob(`more-${i}`)));
      expectError(await deploy(device, tooMany), 409, 'CONFLICT', /would hold 65 jobs/);
    });
  });

  describe('authorization', () => {
    let device: string;
    let deploymentId: string;
    beforeAll(async () => {
      device = await freshDevice();
      deploymentId = (await create(device, true)).id;
    });

    type Call = (device: string, deploymentId: string, caller: Caller) => Promise<ApiResponse>;
    const READS: [string, Call][] = [
      ['list', (d, _id, c) => server.api.post('/devices/deployments/list', { device: d }, c)],
      ['status', (d, _id, c) => server.api.post('/devices/deployments/status', { device: d }, c)],
      ['show', (d, _id, c) => server.api.get(`/devices/${d}/deployment`, c)],
      ['active', (d, _id, c) => server.api.get(`/devices/${d}/deployments/active`, c)],
    ];
    const CHANGES: [string, Call][] = [
      ['new', (d, _id, c) => server.api.post(`/devices/${d}/deployments`, {}, c)],
      ['activate', (d, id, c) => activate(d, id, c)],
      ['clone', (d, id, c) => server.api.post(`/devices/${d}/deployments/${id}/clone`, {}, c)],
      ['deploy', (d, _id, c) => deploy(d, deployRequest([serviceJob('web')]), c)],
      ['undeploy', (d, _id, c) => server.api.delete(`/devices/${d}/deployments/jobs/web`, c)],
      ['rm', (d, _id, c) => server.api.delete(`/devices/${d}/deployments/${MISSING}`, c)],
      ['logs', (d, _id, c) => server.api.get(`/devices/${d}/deployments/jobs/web/logs`, c)],
    ];

    it.each(READS)('lets a viewer %s', async (_name, call) => {
      expect((await call(device, deploymentId, viewer)).status).toBe(200);
    });

    it.each(CHANGES)('refuses %s to a viewer (403) and lets an editor reach it', async (_name, call) => {
      expectError(await call(device, deploymentId, viewer), 403, 'FORBIDDEN', /does not allow device:deploy/);
      expect((await call(device, deploymentId, editor)).status).not.toBe(403);
    });

    it.each([...READS, ...CHANGES])('answers %s for a stranger exactly as for a missing device (404)', async (_name, call) => {
      const hidden = await call(device, deploymentId, stranger);
      expectError(hidden, 404, 'DEVICE_NOT_FOUND', 'Device not found');
      expectError(await call('no-such-device', deploymentId, owner), 404, 'DEVICE_NOT_FOUND', 'Device not found');
    });

    it.each([...READS, ...CHANGES])('requires authentication for %s (401)', async (_name, call) => {
      expectError(await call(device, deploymentId, {}), 401, 'UNAUTHENTICATED');
      expectError(await call(device, deploymentId, server.admin), 403, 'FORBIDDEN');
    });

    it('answers job logs of an offline device with 503', async () => {
      expectError(await server.api.get(`/devices/${device}/deployments/jobs/web/logs?follow=true&tail=5`, owner), 503, 'DEVICE_OFFLINE');
      expectError(await server.api.get(`/devices/${device}/deployments/jobs/web/logs?tail=99999`, owner), 400, 'INVALID_INPUT', /tail/);
      expectError(await server.api.get(`/devices/${device}/deployments/jobs/web/logs?follow=yes`, owner), 400, 'INVALID_INPUT', /follow/);
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
    const b = (await step(server.api.post(`/devices/${device}/deployments/${a.id}/clone`, {}, owner))).body;
    await step(server.api.delete(`/devices/${device}/deployments/jobs/db?deployment_id=${b.id}`, owner));
    await step(server.api.delete(`/devices/${device}/deployments/${b.id}`, owner));
    const logs = (await server.api.get(`/devices/${device}/audit-logs?max=50`, owner)).body.logs as { user: string; action: string; details: string }[];
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
    const listed = await server.api.post('/devices/deployments/list', { devices: [withActive, without, 'nope'] }, viewer);
    expect(listed.status).toBe(200);
    expect(listed.body.results).toEqual([
      { device: withActive, deployments: [expect.objectContaining({ id: a.id, active: true })] },
      { device: without, deployments: [expect.objectContaining({ active: false })] },
      { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
    ]);
    const statuses = await server.api.post('/devices/deployments/status', { devices: [withActive, without, 'nope'] }, viewer);
    expect(statuses.body.results).toEqual([
      { device: withActive, deployment_id: a.id, status: 'pending', jobs: [], reported_at: null, online: false, stale: true },
      { device: without, error: 'No active deployment', code: 'NO_ACTIVE_DEPLOYMENT' },
      { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
    ]);
    const named = await server.api.post('/devices/deployments/status', { devices: [withActive, without], deployment_id: a.id }, viewer);
    expect(named.body.results[1]).toEqual({ device: without, error: `Deployment ${a.id} not found`, code: 'NOT_FOUND' });
  });

  it('removes the deployments of a removed device: the same id registered again starts empty', async () => {
    const device = await freshDevice();
    await deploy(device, deployRequest([serviceJob('web')]));
    expect((await server.api.post('/devices/reject', { device }, owner)).status).toBe(200);
    await registerDevice(server, device, `user:${OWNER}`, owner);
    expect(await list(device)).toEqual([]);
    expectError(await server.api.get(`/devices/${device}/deployments/active`, owner), 404, 'NO_ACTIVE_DEPLOYMENT');
  });
});
