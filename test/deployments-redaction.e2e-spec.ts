/**
 * What a viewer reads of a deployment (docs/security.md, "Deployment secrets"): the owner and a
 * viewer of one device, over REST and through the real `svc` binary, with a real runtime running a
 * job that prints its secret. The viewer sees the jobs, their env names and file names, and the
 * status, but no env value, no inline file content and no log tail; the owner sees everything.
 * REST calls are operations by name through the SDK.
 */
import { Deployment, DEPLOYMENT_REPORT_INTERVAL_MS, DeploymentStatus, REDACTED } from '@svc/common';
import { DeployProject, deploymentDocument } from './fixtures/deploy-project';
import { eventually } from './fixtures/eventually';
import { expectRefused } from './fixtures/expect-error';
import { FleetUser, useFleet } from './fixtures/fleet';
import { CliHome, svc, svcJson } from './fixtures/svc-cli';
import type { TestServer } from './fixtures/test-server';

const OWNER = 'owner@redaction.test';
const VIEWER = 'viewer@redaction.test';
const DEVICE = 'red-1';
const SECRET = 'TOPSECRET-7c1f';
const FILE_SECRET = 'FILE-SECRET-93ab';

describe('deployment secrets and viewers (real binary, real server, real runtime)', () => {
  const fleet = useFleet({
    users: { owner: OWNER, viewer: VIEWER },
    devices: { [DEVICE]: { owner: 'owner', shares: { viewer: 'viewer' }, runtime: { env: { SVC_IMAGE_UPDATE_INTERVAL: 'off' }, readyLog: 'deployment channel open' } } },
  });
  let server: TestServer;
  let owner: FleetUser;
  let viewer: FleetUser;
  let project: DeployProject;
  let ownerCli: CliHome;
  let viewerCli: CliHome;
  const ticker = setInterval(() => server?.clock.advance(20), 20);

  const status = async (user: FleetUser): Promise<any> => user.run('device_deployment_status', { device: DEVICE });

  beforeAll(async () => {
    project = new DeployProject();
    server = fleet.server;
    owner = fleet.user('owner');
    viewer = fleet.user('viewer');
    ownerCli = fleet.user('owner').home;
    viewerCli = fleet.user('viewer').home;

    project.write('token.txt', `${FILE_SECRET}\n`);
    const job = `  - id: app
    env:
      API_TOKEN: ${SECRET}
    files:
      token.txt: ./token.txt
    steps:
      - name: main
        run: sleep 2; echo "token is $API_TOKEN and $(cat token.txt)"; exec sleep 3600
`;
    await svcJson(ownerCli, ['deploy', DEVICE, project.write('app.yaml', deploymentDocument('app', [job]))]);
    // A report goes out at most 500 ms after a job's state changes; the job prints 2 s after it
    // started running, so its line always comes with the next repeat (DEPLOYMENT_REPORT_INTERVAL_MS,
    // 60 s), whose new log tail the server stores in place of the unchanged report (as on a loaded
    // machine, where a line that came late stayed out of the status for 30 minutes): wait past it.
    // On a timeout, the last status says where it stopped.
    await eventually('the job printed its secret into the status', async () => (await status(owner)).jobs?.[0]?.log_tail?.some((line: string) => line.includes(SECRET)), {
      timeoutMs: DEPLOYMENT_REPORT_INTERVAL_MS + 30_000,
      describe: async () => JSON.stringify(await status(owner)).slice(0, 2000),
    });
  }, DEPLOYMENT_REPORT_INTERVAL_MS + 60_000);
  afterAll(() => {
    clearInterval(ticker);
    project?.remove();
  });

  it('shows the owner env values and file contents, and a viewer the names only (REST)', async () => {
    const mine = (await owner.run('device_deployment_show', { device: DEVICE })) as Deployment;
    expect(mine.jobs[0]).toMatchObject({ env: { API_TOKEN: SECRET }, files: { 'token.txt': `${FILE_SECRET}\n` } });
    expect(mine).not.toHaveProperty('redacted');

    const res = await viewer.run('device_deployment_show', { device: DEVICE });
    expect(res).toMatchObject({ redacted: true, jobs: [{ id: 'app', env: { API_TOKEN: REDACTED }, files: { 'token.txt': REDACTED } }] });
    expect(JSON.stringify(res)).not.toMatch(new RegExp(`${SECRET}|${FILE_SECRET}`));
    // The rest of the job is there: its steps, its type.
    expect(res.jobs[0]).toMatchObject({ type: 'service', steps: [expect.objectContaining({ name: 'main' })] });
  });

  it('leaves the log tails out of a viewer\'s status, single and [Batch] (REST), as it refuses the viewer the job log', async () => {
    const mine = (await status(owner)) as DeploymentStatus;
    expect(mine.jobs[0].log_tail?.join('\n')).toContain(SECRET);

    const theirs = await status(viewer);
    expect(theirs).toMatchObject({ status: 'running', online: true, jobs: [{ id: 'app', status: 'running' }] });
    expect(theirs.jobs[0]).not.toHaveProperty('log_tail');
    expect(JSON.stringify(theirs)).not.toContain(SECRET);
    const batch = (await viewer.run('device_deployment_status', { devices: [DEVICE] })) as { results: unknown[] };
    expect(JSON.stringify(batch)).not.toContain(SECRET);
    expect(batch.results[0]).toMatchObject({ device: DEVICE, status: 'running' });

    await expectRefused(viewer.client.deploymentLogs(DEVICE, 'app'), 403, 'FORBIDDEN', /device:deploy/);
  });

  it('lists summaries without env or files to everyone (REST)', async () => {
    for (const caller of [owner, viewer]) {
      const listed = (await caller.run('device_deployment_list', { device: DEVICE })) as { deployments: unknown[] };
      expect(listed.deployments).toEqual([
        { id: expect.any(String), active: true, name: 'app', jobs: [{ id: 'app', type: 'service', enabled: true }], created_at: expect.any(String), updated_at: expect.any(String) },
      ]);
    }
  });

  it('gives the same answers through svc: the owner reads the secrets, the viewer does not', async () => {
    expect(JSON.stringify(await svcJson(ownerCli, ['deployments', 'show', DEVICE]))).toContain(SECRET);
    expect(JSON.stringify(await svcJson(ownerCli, ['deployments', 'status', DEVICE]))).toContain(SECRET);

    const shown = await svcJson<Deployment>(viewerCli, ['deployments', 'show', DEVICE]);
    expect(shown).toMatchObject({ redacted: true, jobs: [{ env: { API_TOKEN: REDACTED }, files: { 'token.txt': REDACTED } }] });
    const human = await svc(viewerCli, ['deployments', 'show', DEVICE]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Secrets: +env values and file contents hidden \(your role on this device does not allow device:deploy\)$/m);

    const state = await svc(viewerCli, ['deployments', 'status', DEVICE, '--json']);
    expect(state.code).toBe(0);
    expect(state.stdout).not.toContain(SECRET);
    expect(JSON.parse(state.stdout)).toMatchObject({ status: 'running', jobs: [{ id: 'app' }] });
    for (const args of [['deployments', 'show', DEVICE], ['deployments', 'status', DEVICE], ['deployments', 'list', DEVICE]]) {
      const out = await svc(viewerCli, args);
      expect(`${out.stdout}${out.stderr}`).not.toMatch(new RegExp(`${SECRET}|${FILE_SECRET}`));
    }
    const logs = await svc(viewerCli, ['deployments', 'logs', DEVICE, 'app']);
    expect(logs.code).toBe(2);
    expect(logs.stdout).not.toContain(SECRET);
  });
});
