/**
 * A runtime killed with SIGKILL cannot stop its jobs; the next one must not start a second copy
 * next to them. A real server, a real runtime process, a deployed service that binds a TCP port:
 * after `kill -9` of the runtime and a restart, exactly one process of the job exists (/proc),
 * it is a new one, and the job is running and healthy (its port answers).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { processRunning } from './fixtures/deployment-jobs';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import type { TestServer } from './fixtures/test-server';
import { freePort } from './fixtures/free-port';
import { eventually as waitUntil } from './fixtures/eventually';

const OWNER = 'owner@leftover-jobs.test';
const WAIT_MS = 60_000;

/** Live (not zombie) processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) && processRunning(Number(entry));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('jobs left running by a runtime killed with SIGKILL', () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-leftover-'));
  let server: TestServer;
  let runtime: RuntimeProcess | undefined;
  let env: Record<string, string>;
  let ticker: NodeJS.Timeout;
  const marker = `svc-leftover-${process.pid}`;
  // Declared before the fleet, so that it runs first: the runtime (killed and restarted by the test, so its own) stops before the server.
  afterAll(async () => {
    clearInterval(ticker);
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { owner: OWNER }, devices: { leftover: { owner: 'owner' } } });

  beforeAll(() => {
    server = fleet.server;
    ticker = setInterval(() => server.clock.advance(20), 20);
    env = { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile, SVC_API_KEY: fleet.device('leftover').apiKey, SVC_IMAGE_UPDATE_INTERVAL: 'off' };
  });

  const eventually = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false) =>
    waitUntil(what, check, { timeoutMs: WAIT_MS, describe: () => `runtime log:\n${runtime?.stderr.slice(-30).join('\n')}` });

  const webJob = async () => {
    const body = (await fleet.user('owner').run('device_deployment_status', { device: 'leftover' })) as { jobs?: { id: string }[] };
    return (body.jobs ?? []).find((job: { id: string }) => job.id === 'web') as { status: string; health: string; restarts: number } | undefined;
  };

  it('stops the leftover at start: exactly one instance runs, healthy, without crash-looping', async () => {
    const port = await freePort();
    const listen = `require('net').createServer((s) => s.on('error', () => {}).end('up')).listen(${port}, '127.0.0.1')`;
    const probe = `require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`;
    const web = serviceJob('web', {
      steps: [{ name: 'serve', run: [process.execPath, '-e', listen, marker] }],
      restart: { policy: 'always', backoff: '200ms', max_backoff: '1s' },
      observe: { health: { every: '300ms', observe: [process.execPath, '-e', probe], fails_after: 2 } },
    });
    runtime = startRuntimeProcess(['run'], env);
    await runtime.waitForLog('deployment channel open');
    await fleet.user('owner').client.deploy('leftover', deployRequest([web]));
    await eventually('web running and healthy', async () => (await webJob())?.health === 'healthy');
    const [first] = await eventually('one web process', () => processesWith(marker).length === 1 && processesWith(marker));

    runtime.kill('SIGKILL');
    await runtime.exited;
    expect(processRunning(first)).toBe(true); // what SIGKILL leaves: the job, still holding its port

    runtime = startRuntimeProcess(['run'], env);
    await runtime.waitForLog('deployment channel open');
    await eventually('the old instance gone', () => !processRunning(first));
    const job = await eventually('web running and healthy again', async () => {
      const status = await webJob();
      return status?.status === 'running' && status.health === 'healthy' && status;
    });
    const now = processesWith(marker);
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(first);
    expect(job.restarts).toBe(0);
    expect(runtime.stderr.join('\n')).not.toContain('EADDRINUSE');

    // A clean stop stops the job and leaves no record behind.
    runtime.kill('SIGTERM');
    expect(await runtime.exited).toEqual({ code: 0, signal: null });
    expect(processesWith(marker)).toEqual([]);
    expect(readdirSync(join(home, 'svc', 'deployments', 'groups'))).toEqual([]);
  });
});
