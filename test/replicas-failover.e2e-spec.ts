/**
 * `kill -9` of replica B (a real server process) while a caller on replica A has a stream open to
 * a device B holds: the caller gets a clean error at once, not a hang; A reads B's devices offline
 * within the heartbeat TTL (no goodbye from B: only its silence); the runtime, which reaches the
 * replicas through a plain TCP balancer, re-homes on A, and operations work again there.
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
import { connectRuntimeStub } from './fixtures/tunnel-runtime-stub';
import { REPLICA_LIVENESS_TTL_MS } from '../apps/server/src/replicas/nats-tunnel-directory';

const ALICE = 'alice@replica-failover.test';
const DEVICE = 'fo-1';
const STRANDED = 'fo-2';
/**
 * Room a loaded 2-core machine needs on top of each bound: the test's own status request and the
 * 100 ms between looks, and this process's event loop (replica A runs in it) running late.
 */
const MARGIN_MS = 1_500;

describe('replicas on NATS: kill -9 of the holder', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let runtime: RuntimeProcess;
  let stranded: RuntimeProcess;
  let alice: Caller;
  let home: string;
  let balancer: TcpBalancer;

  /** A runtime on the TCP carrier, tunnelling to 127.0.0.1:`tunnelPort`, its config in `home/configDir`. */
  const tcpRuntime = (tunnelPort: number, apiKey: string, configDir: string) =>
    startRuntimeProcess(['run', '--transport', 'tcp', '--tunnel', `127.0.0.1:${tunnelPort}`], {
      HOME: home,
      SVC_CONFIG_DIR: join(home, configDir),
      SVC_SERVER_URL: replicas.a.url,
      SVC_CA_FILE: replicas.a.tunnel!.caFile,
      SVC_API_KEY: apiKey,
    });

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-replica-failover-'));
    replicas = await startReplicaPair(idp, nats.url);
    alice = await replicas.a.login(ALICE);
    const apiKey = await registerDevice(replicas.a, DEVICE, `user:${ALICE}`, alice);
    // B first while it lives, so the tunnel starts there; A takes what B cannot.
    balancer = await startTcpBalancer(() => [...(replicas.b.child.exitCode === null && replicas.b.child.signalCode === null ? [replicas.b.tunnelPort] : []), replicas.a.tunnel!.port]);
    runtime = tcpRuntime(balancer.port, apiKey, 'svc');
    await runtime.waitForLog('tunnel up');
    const strandedKey = await registerDevice(replicas.a, STRANDED, `user:${ALICE}`, alice);
    stranded = tcpRuntime(replicas.b.tunnelPort, strandedKey, 'svc-stranded');
    await stranded.waitForLog('tunnel up');
    for (const id of [DEVICE, STRANDED]) {
      await eventually(`B to hold ${id}, and A to see it`, async () => (await replicas.b.api.get(`/devices/${id}/status`, alice)).body.status === 'online' && (await replicas.a.api.get(`/devices/${id}/status`, alice)).body.status === 'online');
    }
    await eventually('A to see the device B holds', async () => (await replicas.a.api.get(`/devices/${DEVICE}/status`, alice)).body.status === 'online');
  });

  afterAll(async () => {
    runtime?.kill('SIGKILL');
    stranded?.kill('SIGKILL');
    await runtime?.exited;
    await stranded?.exited;
    await balancer?.close();
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('an exec in flight through A ends with a clean error when B dies; B\'s entries read lost within the TTL; the device re-homes on A', async () => {
    const inFlight = replicas.a.api.post('/api/exec', { device: DEVICE, command: ['sh', '-c', 'echo started; sleep 60'] }, alice);
    await eventually('the exec to run on the device', () => replicas.b.output().includes(`peer stream exec on device ${DEVICE}`));
    const killedAt = Date.now();
    replicas.b.child.kill('SIGKILL');
    const answer = await inFlight;
    // At once, not at the command's 60 s: the killed process's sockets close, which ends the hop (measured: ~20 ms).
    expect(Date.now() - killedAt).toBeLessThan(MARGIN_MS);
    expect(answer.body).toMatchObject({ statusCode: 503, code: 'DEVICE_OFFLINE', message: expect.any(String), requestId: expect.any(String) });

    // A device B held that nothing re-homes (its runtime dialed B directly) reads offline on A once
    // B's heartbeat is overdue: B's silence, not a goodbye, told A. Within the TTL of the kill: B's
    // last heartbeat came before it, and A counts the TTL from that beat.
    let offlineAt = 0;
    const offline = await eventually('A to read the stranded device offline', async () => {
      const asked = Date.now();
      const status = (await replicas.a.api.get(`/devices/${STRANDED}/status`, alice)).body;
      offlineAt = asked;
      return status.status === 'offline' && status;
    });
    expect(offline).toMatchObject({ status: 'offline', health: 'unreachable' });
    expect(offlineAt - killedAt).toBeLessThan(REPLICA_LIVENESS_TTL_MS + MARGIN_MS);
    expect((await replicas.a.api.post('/api/exec', { device: STRANDED, command: ['true'] }, alice)).body).toMatchObject({ statusCode: 503, code: 'DEVICE_OFFLINE' });

    // The runtime behind the balancer lost its tunnel with B and reconnected; the balancer now reaches A.
    await eventually('the device online again on A', async () => (await replicas.a.api.get(`/devices/${DEVICE}/status`, alice)).body.status === 'online');
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    const exec = await replicas.a.api.post('/api/exec', { device: DEVICE, command: ['echo', 'back on A'] }, alice);
    expect(exec.body).toMatchObject({ output: 'back on A\n', exit_code: 0 });
  });

  it('B started again under the same REPLICA_ID does not bring back the tunnels it held before it was killed', async () => {
    const b = await replicas.restartB();
    // A device on the new B reads online on A once A hears B's heartbeat again.
    const apiKey = await registerDevice(replicas.a, 'fo-witness', `user:${ALICE}`, alice);
    const witness = await connectRuntimeStub({ port: b.tunnelPort, ca: replicas.a.tunnel!.caFile, apiKey });
    try {
      await eventually('A to hear the new B', async () => (await replicas.a.api.get('/devices/fo-witness/status', alice)).body.status === 'online');
      // B's old entry for the stranded device (whose runtime cannot reach the new B) was released.
      for (const api of [replicas.a.api, b.api]) expect((await api.get(`/devices/${STRANDED}/status`, alice)).body).toMatchObject({ status: 'offline', health: 'unreachable' });
    } finally {
      witness.close();
    }
  });

  it('SIGTERM of B: its tunnels close telling why, B stops cleanly, and its runtimes move to A through the balancer', async () => {
    const deviceId = 'fo-3';
    const apiKey = await registerDevice(replicas.a, deviceId, `user:${ALICE}`, alice);
    const moving = startRuntimeProcess(['run', '--transport', 'tcp', '--tunnel', `127.0.0.1:${balancer.port}`], {
      HOME: home,
      SVC_CONFIG_DIR: join(home, 'svc-moving'),
      SVC_SERVER_URL: replicas.a.url,
      SVC_CA_FILE: replicas.a.tunnel!.caFile,
      SVC_API_KEY: apiKey,
    });
    try {
      await moving.waitForLog('tunnel up');
      await eventually('B to hold fo-3', async () => (await replicas.b.api.get(`/devices/${deviceId}/status`, alice)).body.status === 'online');
      const after = moving.stderr.length;
      const stopping = replicas.b.stop();
      const lost = await moving.waitForLog('tunnel lost', after);
      expect(String(lost.reason)).toMatch(/shutting down/);
      await stopping;
      // A clean stop: Nest re-raises the signal once its shutdown hooks are done.
      expect(replicas.b.child.exitCode === 0 || replicas.b.child.signalCode === 'SIGTERM').toBe(true);
      expect(replicas.b.output()).not.toMatch(/"level":"error"/);
      await moving.waitForLog('tunnel up', after);
      await eventually('fo-3 online on A', async () => (await replicas.a.api.get(`/devices/${deviceId}/status`, alice)).body.status === 'online');
      expect((await replicas.a.api.post('/api/exec', { device: deviceId, command: ['echo', 'moved'] }, alice)).body).toMatchObject({ output: 'moved\n', exit_code: 0 });
    } finally {
      moving.kill('SIGKILL');
      await moving.exited;
    }
  });
});
