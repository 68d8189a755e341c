/**
 * Deployments from the caller's side: bad run-spec and compose files refused by `svc deploy`
 * before anything is sent (exit 2, the file, line and field named), a compose file mapped and
 * stored, and the deployment tools of `svc mcp` driven by an agent's MCP client over stdio —
 * against the real server and a real runtime process running what the agent deploys. The CLI's
 * lifecycle on a runtime: deployments.e2e-spec.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Deployment, DeploymentStatus, DeploymentSummary } from '@svc/common';
import { DeployProject, processRunning } from './fixtures/deploy-project';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { callTool, callToolError, McpSession, startMcp } from './fixtures/mcp-session';
import type { RuntimeProcess } from './fixtures/runtime-process';
import { CliHome, svc, svcJson } from './fixtures/svc-cli';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@deployments-mcp.test';
/** Runs a runtime. */
const DEVICE = 'mcp-dep';
/** Registered, offline, never given a deployment. */
const IDLE = 'mcp-idle';
/** Registered, offline: what a compose file becomes is stored there. */
const COMPOSE = 'mcp-compose';

const DEPLOYMENT_TOOLS = [
  'device_deploy',
  'device_undeploy',
  'device_deployment_list',
  'device_deployment_new',
  'device_deployment_show',
  'device_deployment_rm',
  'device_deployment_active',
  'device_deployment_activate',
  'device_deployment_status',
  'device_deployment_clone',
];

/** A deployment document whose line 6 has a duration that is not one. */
const BAD_RUNSPEC = `name: bad
jobs:
  - id: web
    steps:
      - name: serve
        timeout: 10 minutes
        run: ./serve
`;
const BAD_COMPOSE = `services:
  web:
    build: .
`;

describe('deploy files and the deployment tools of svc mcp (real binary, real server, real runtime)', () => {
  // The runtime's home: made before the fleet starts it.
  const project = new DeployProject();
  const fleet = useFleet({
    users: { alice: ALICE },
    devices: {
      [DEVICE]: { owner: 'alice', runtime: { env: { HOME: project.dir, SVC_CONFIG_DIR: `${project.dir}/device`, SVC_IMAGE_UPDATE_INTERVAL: 'off' }, readyLog: 'deployment channel open' } },
      [IDLE]: { owner: 'alice' },
      [COMPOSE]: { owner: 'alice' },
    },
  });
  let server: TestServer;
  let runtime: RuntimeProcess;
  let alice: CliHome;
  let mcp: McpSession;
  const ticker = setInterval(() => server?.clock.advance(20), 20);

  /** A run-spec job (a single job file) whose main process writes its pid to the project's `<pidKey>.pid`. */
  const sleeperFile = (name: string, pidKey: string) => project.write(name, `id: sleeper\nsteps:\n  - name: main\n    run: echo $$ > ${project.pidFile(pidKey)}; exec sleep 3600\nrestart: {policy: always, backoff: 200ms, max_backoff: 1s}\n`);
  const status = async (deploymentId?: string) => (await fleet.user('alice').run('device_deployment_status', { device: DEVICE, deployment_id: deploymentId })) as DeploymentStatus;
  const describeLast = async () => `last status: ${JSON.stringify(await status())}\nruntime log:\n${runtime.stderr.slice(-20).join('\n')}`;

  beforeAll(async () => {
    server = fleet.server;
    runtime = fleet.device(DEVICE).runtime!;
    alice = fleet.user('alice').home;
    // The MCP server's working directory is the project: device_deploy's relative paths are read there.
    mcp = await startMcp(alice.env, [], project.dir);
  });
  afterAll(async () => {
    clearInterval(ticker);
    await mcp?.close();
    project.remove();
  });

  describe('svc deploy with a bad file', () => {
    it('refuses a bad run-spec with one line naming the file, the line and the field (exit 2), and sends nothing', async () => {
      project.write('bad.yaml', BAD_RUNSPEC);
      const result = await svc(alice, ['deploy', DEVICE, 'bad.yaml'], { cwd: project.dir });
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toBe('Error: bad.yaml:6: jobs[0].steps[0].timeout: "10 minutes" is not a duration (Ns, Nm or Nh)\n');
      expect(await svcJson(alice, ['deployments', 'list', DEVICE])).toEqual({ deployments: [] });
    });

    it('refuses a compose file that would fail on the device, under --json too', async () => {
      project.write('compose.yaml', BAD_COMPOSE);
      const result = await svc(alice, ['deploy', DEVICE, 'compose.yaml', '--json'], { cwd: project.dir });
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stdout)).toEqual({
        error: { code: 'INVALID_INPUT', message: expect.stringMatching(/^compose\.yaml:3: services\.web\.build: the build context is not sent/), exit_code: 2 },
      });
      const missing = await svc(alice, ['deploy', DEVICE, 'nowhere.yaml'], { cwd: project.dir });
      expect(missing).toMatchObject({ code: 2, stderr: 'Error: nowhere.yaml: no such file\n' });
    });

    it('stores what a good compose file becomes: one service job driving docker compose', async () => {
      project.write('config.env', 'GREETING=hi\n');
      project.write('docker-compose.yml', 'name: Shop Front\nservices:\n  web: {image: nginx:1.27, env_file: ./config.env}\n');
      expect(await svcJson(alice, ['deploy', COMPOSE, 'docker-compose.yml'], { cwd: project.dir })).toEqual({ status: 'deployed', deployment_id: expect.any(String) });
      const [job] = (await svcJson<Deployment>(alice, ['deployments', 'show', COMPOSE])).jobs;
      expect(job).toMatchObject({ id: 'shop-front', type: 'service', source: 'compose', env: { COMPOSE_PROJECT_NAME: 'shop-front' } });
      expect(Object.keys(job.files).sort()).toEqual(['compose.yaml', 'config.env']);
      expect(job.steps.map((step) => step.name)).toEqual(['pull', 'up']);
      expect((await svc(alice, ['deployments', 'show', COMPOSE])).stdout).toMatch(/^shop-front +service \(compose\) +yes +pull, up +liveness every 10s, health every 10s, logs +always/m);
    });
  });

  describe('svc mcp', () => {
    const ids = { first: '', clone: '' };

    it('lists every deployment tool with its parameters', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(DEPLOYMENT_TOOLS));
      const deploy = tools.find((tool) => tool.name === 'device_deploy')!;
      expect(deploy.inputSchema.required).toEqual(['device', 'file']);
      expect(deploy.description).toMatch(/file is a path here/);
    });

    it('device_deployment_list answers summaries: a 20 KB inline file stays out of the list, one device_deployment_show away', async () => {
      project.write('big.txt', 'x'.repeat(20 * 1024));
      project.write('big.yaml', `id: big\nenabled: false\nfiles:\n  big.txt: ./big.txt\nenv:\n  TOKEN: summary-secret\nsteps:\n  - name: main\n    run: exec sleep 3600\n`);
      expect((await svc(alice, ['deploy', COMPOSE, 'big.yaml'], { cwd: project.dir })).code).toBe(0);
      const raw = (await mcp.client.callTool({ name: 'device_deployment_list', arguments: { device: COMPOSE } })) as CallToolResult;
      const [text] = raw.content as Array<{ type: 'text'; text: string }>;
      expect(Buffer.byteLength(text.text)).toBeLessThan(1024);
      expect(text.text).not.toContain('summary-secret');
      const listed = JSON.parse(text.text) as { deployments: DeploymentSummary[] };
      expect(listed.deployments).toEqual([
        expect.objectContaining({ id: expect.any(String), active: true, jobs: [{ id: 'shop-front', type: 'service', enabled: true }, { id: 'big', type: 'service', enabled: false }], created_at: expect.any(String), updated_at: expect.any(String) }),
      ]);
      expect(Object.keys(listed.deployments[0]).every((key) => ['id', 'active', 'name', 'jobs', 'rollback', 'created_at', 'updated_at'].includes(key))).toBe(true);
      const shown = await callTool<Deployment>(mcp, 'device_deployment_show', { device: COMPOSE, deployment_id: listed.deployments[0].id });
      expect(shown.jobs.find((job) => job.id === 'big')?.files['big.txt']).toHaveLength(20 * 1024);
    });

    it('device_deploy reads a file relative to its working directory; the device runs the job', async () => {
      sleeperFile('sleeper.yaml', 'mcp-sleeper');
      const deployed = await callTool(mcp, 'device_deploy', { device: DEVICE, file: 'sleeper.yaml' });
      expect(deployed).toEqual({ status: 'deployed', deployment_id: expect.any(String) });
      ids.first = deployed.deployment_id;
      await eventually('the job running', () => project.pid('mcp-sleeper'), { describe: describeLast });

      const listed = await callTool<{ deployments: Deployment[] }>(mcp, 'device_deployment_list', { device: DEVICE });
      expect(listed.deployments).toEqual([expect.objectContaining({ id: ids.first, active: true, jobs: [expect.objectContaining({ id: 'sleeper', type: 'service' })] })]);
      expect(await callTool(mcp, 'device_deployment_show', { device: DEVICE })).toMatchObject({ id: ids.first, active: true });
      expect(await callTool(mcp, 'device_deployment_active', { device: DEVICE })).toEqual({ active_deployment_id: ids.first });
    });

    it('device_deployment_status answers a [Batch] per device, the one without a deployment as its error', async () => {
      const batch = await eventually(
        'the device reporting running',
        async () => {
          const answer = await callTool<{ results: Array<Record<string, unknown>> }>(mcp, 'device_deployment_status', { devices: [DEVICE, IDLE] });
          return answer.results[0].status === 'running' && answer;
        },
        { describe: describeLast },
      );
      expect(batch.results).toEqual([
        expect.objectContaining({ device: DEVICE, deployment_id: ids.first, status: 'running', jobs: [expect.objectContaining({ id: 'sleeper', status: 'running', health: 'healthy' })] }),
        { device: IDLE, error: 'No active deployment', code: 'NO_ACTIVE_DEPLOYMENT' },
      ]);
      expect(await callToolError(mcp, 'device_deployment_status', { device: DEVICE, devices: [IDLE] })).toMatch(/^INVALID_INPUT: Give either device or devices, not both/);
    });

    it('clones, deploys into the clone under another name, activates it: the device switches', async () => {
      const before = project.pid('mcp-sleeper')!;
      const copy = await callTool<Deployment>(mcp, 'device_deployment_clone', { device: DEVICE, deployment_id: ids.first });
      expect(copy).toMatchObject({ active: false, jobs: [expect.objectContaining({ id: 'sleeper' })] });
      ids.clone = copy.id;
      sleeperFile('second.yaml', 'mcp-second');
      expect(await callTool(mcp, 'device_deploy', { device: DEVICE, file: 'second.yaml', name: 'second', deployment_id: ids.clone })).toEqual({ status: 'deployed', deployment_id: ids.clone });

      expect(await callTool(mcp, 'device_deployment_activate', { device: DEVICE, deployment_id: ids.clone })).toEqual({ status: 'activated' });
      expect(await callTool(mcp, 'device_deployment_active', { device: DEVICE })).toEqual({ active_deployment_id: ids.clone });
      await eventually('the second job running and the first restarted', () => project.pid('mcp-second') && !processRunning(before) && project.pid('mcp-sleeper'), { describe: describeLast });
      await eventually('the clone reported running', async () => (await status(ids.clone)).status === 'running', { describe: describeLast });
      expect((await status()).jobs.map((job) => job.id)).toEqual(['sleeper', 'second']);
    });

    it('undeploys a job, creates and removes a deployment, and refuses to remove the active one', async () => {
      const second = project.pid('mcp-second')!;
      expect(await callTool(mcp, 'device_undeploy', { device: DEVICE, job_id: 'second' })).toEqual({ status: 'undeployed' });
      await eventually('the undeployed job stopped', () => !processRunning(second), { describe: describeLast });
      const created = await callTool<Deployment>(mcp, 'device_deployment_new', { device: DEVICE });
      expect(created).toMatchObject({ active: false, jobs: [] });
      expect(await callTool(mcp, 'device_deployment_rm', { device: DEVICE, deployment_id: created.id })).toEqual({ status: 'removed' });
      // A refusal says what is wrong; the server's request id (which helps only with server faults) is left out.
      const refusal = await callToolError(mcp, 'device_deployment_rm', { device: DEVICE, deployment_id: ids.clone });
      expect(refusal).toMatch(/^CONFLICT: Deployment .* is active; activate another deployment first/);
      expect(refusal).not.toContain('(request ');
    });

    it('refuses a bad file as a tool error naming the line and field', async () => {
      project.write('bad.yaml', BAD_RUNSPEC);
      expect(await callToolError(mcp, 'device_deploy', { device: DEVICE, file: 'bad.yaml' })).toBe('INVALID_INPUT: bad.yaml:6: jobs[0].steps[0].timeout: "10 minutes" is not a duration (Ns, Nm or Nh)');
      expect(await callToolError(mcp, 'device_deploy', { device: DEVICE, file: 'bad.yaml', spec_type: 'helm' })).toMatch(/^INVALID_INPUT: device_deploy: spec_type must be one of/);
    });

    it('is recorded in the audit log "(via MCP)", unlike the same user\'s svc deploy', async () => {
      expect((await svc(alice, ['deploy', DEVICE, 'sleeper.yaml', '--name', 'from-cli', '--deployment', ids.first], { cwd: project.dir })).code).toBe(0);
      const { logs } = (await fleet.user('alice').run('device_audit_logs', { device: DEVICE })) as { logs: Array<{ action: string; user: string; details: string }> };
      const deploys = (logs as Array<{ action: string; user: string; details: string }>).filter((entry) => entry.action === 'device.deployment_jobs_deployed');
      expect(deploys.find((entry) => entry.details.includes('job(s) sleeper'))).toMatchObject({ user: ALICE, details: expect.stringMatching(/\(via MCP\)$/) });
      expect(deploys.find((entry) => entry.details.includes('from-cli'))?.details).not.toContain('via MCP');
      const activations = logs.filter((entry: { action: string }) => entry.action === 'device.deployment_activated');
      expect(activations).toEqual([expect.objectContaining({ details: expect.stringMatching(/\(via MCP\)$/) })]);
    });

    it('offers only the reading deployment tools with --read-only', async () => {
      const readOnly = await startMcp(alice.env, ['--read-only'], project.dir);
      try {
        const names = (await readOnly.client.listTools()).tools.map((tool) => tool.name).filter((name) => DEPLOYMENT_TOOLS.includes(name));
        expect(names).toEqual(['device_deployment_list', 'device_deployment_show', 'device_deployment_active', 'device_deployment_status']);
        expect(await callTool(readOnly, 'device_deployment_status', { device: DEVICE })).toMatchObject({ deployment_id: ids.clone });
        expect(await callToolError(readOnly, 'device_deploy', { device: DEVICE, file: 'sleeper.yaml' })).toMatch(/^FORBIDDEN: device_deploy changes things/);
      } finally {
        await readOnly.close();
      }
    });
  });
});
