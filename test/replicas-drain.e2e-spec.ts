/**
 * SIGTERM of replica B with DRAIN_SECS: B closes its tunnels spread over the drain window (not all
 * in one instant), each runtime is told why, and every runtime moves to replica A through a plain
 * TCP balancer; operations reach them there. A peer connection from A does not hold B's stop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { registerDevice } from './fixtures/test-server';
import { startTcpBalancer, TcpBalancer } from './fixtures/tcp-balancer';

const ALICE = 'alice@replica-drain.test';
const DRAIN_SECS = 4;
const DEVICES = ['dr-1', 'dr-2', 'dr-3'];

describe('replicas on NATS: SIGTERM drains over DRAIN_SECS', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let balancer: TcpBalancer;
  let alice: Caller;
  let home: string;
  const runtimes: RuntimeProcess[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-replica-drain-'));
    replicas = await startReplicaPair(idp, nats.url, { DRAIN_SECS: String(DRAIN_SECS) });
    alice = await replicas.a.login(ALICE);
    // B while it runs, A once it is gone.
    balancer = await startTcpBalancer(() => [...(replicas.b.child.exitCode === null && replicas.b.child.signalCode === null ? [replicas.b.tunnelPort] : []), replicas.a.tunnel!.port]);
  });

  afterAll(async () => {
    for (const runtime of runtimes) runtime.kill('SIGKILL');
    await Promise.all(runtimes.map((runtime) => runtime.exited));
    await balancer?.close();
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('closes its tunnels spread over the window, and the runtimes move to A', async () => {
    for (const deviceId of DEVICES) {
      const apiKey = await registerDevice(replicas.a, deviceId, `user:${ALICE}`, alice);
      const runtime = startRuntimeProcess(['run', '--transport', 'tcp', '--tunnel', `127.0.0.1:${balancer.port}`], {
        HOME: home,
        SVC_CONFIG_DIR: join(home, deviceId),
        SVC_SERVER_URL: replicas.a.url,
        SVC_CA_FILE: replicas.a.tunnel!.caFile,
        SVC_API_KEY: apiKey,
      });
      runtimes.push(runtime);
      await runtime.waitForLog('tunnel up');
      await eventually(`B to hold ${deviceId}`, async () => (await replicas.b.api.get(`/devices/${deviceId}/status`, alice)).body.status === 'online');
    }
    // A keeps a peer connection to B open for reuse: it must not hold B's stop.
    await eventually('A to see dr-1 on B', async () => (await replicas.a.api.get('/devices/dr-1/status', alice)).body.status === 'online');
    expect((await replicas.a.api.post('/api/exec', { device: 'dr-1', command: ['true'] }, alice)).status).toBe(200);
    const marks = runtimes.map((runtime) => runtime.stderr.length);
    const stopping = replicas.b.stop();
    const lostAt = await Promise.all(
      runtimes.map(async (runtime, i) => {
        const lost = await runtime.waitForLog('tunnel lost', marks[i]);
        expect(String(lost.reason)).toMatch(/shutting down/);
        // When the runtime saw it (its log line's own time), not when this process got round to reading the line:
        // reading the first one late would shorten the spread measured.
        return Date.parse(lost.time as string);
      }),
    );
    // Evenly spread: the last close comes DRAIN_SECS after the first (the schedule is a lower bound; a loaded machine only adds).
    expect(Math.max(...lostAt) - Math.min(...lostAt)).toBeGreaterThanOrEqual(DRAIN_SECS * 1000 * 0.75);
    await stopping;
    // Stopped on its own (not the fixture's SIGKILL after 10 s).
    expect({ code: replicas.b.child.exitCode, signal: replicas.b.child.signalCode }).not.toEqual({ code: null, signal: 'SIGKILL' });
    for (const deviceId of DEVICES) {
      await eventually(`${deviceId} online on A`, async () => (await replicas.a.api.get(`/devices/${deviceId}/status`, alice)).body.status === 'online');
      expect((await replicas.a.api.post('/api/exec', { device: deviceId, command: ['echo', deviceId] }, alice)).body).toMatchObject({ output: `${deviceId}\n`, exit_code: 0 });
    }
  });
});
