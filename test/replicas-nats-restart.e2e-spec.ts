/**
 * Test 9 of issue 18: NATS restarts (same store, same port) while two replicas run. Afterwards
 * both replicas' copies of the directory are rebuilt from the bus: a device held throughout reads
 * online on both (no false offline once the replicas' TTL has passed), a device whose tunnel came
 * up during the outage is re-asserted by its holder, one whose tunnel went away during the outage
 * reads offline, and operations through the peer hop work again.
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
import { REPLICA_LIVENESS_TTL_MS } from '../apps/server/src/replicas/nats-tunnel-directory';

const ALICE = 'alice@replica-nats-restart.test';

describe('replicas on NATS: a NATS restart', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let alice: Caller;
  let home: string;
  const runtimes: RuntimeProcess[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-replica-nats-restart-'));
    replicas = await startReplicaPair(idp, nats.url);
    alice = await replicas.a.login(ALICE);
  });

  afterAll(async () => {
    for (const runtime of runtimes) runtime.kill('SIGTERM');
    await Promise.all(runtimes.map((runtime) => runtime.exited));
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const runtimeOnB = async (deviceId: string): Promise<RuntimeProcess> => {
    const apiKey = await registerDevice(replicas.a, deviceId, `user:${ALICE}`, alice);
    const dir = join(home, deviceId);
    const runtime = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'svc'), SVC_SERVER_URL: replicas.b.url, SVC_CA_FILE: replicas.a.tunnel!.caFile, SVC_API_KEY: apiKey });
    runtimes.push(runtime);
    await runtime.waitForLog('tunnel up');
    return runtime;
  };
  const statusOn = async (on: 'a' | 'b', deviceId: string): Promise<string> => (await replicas[on].api.get(`/devices/${deviceId}/status`, alice)).body.status;
  const statuses = async () => Object.fromEntries(await Promise.all(['steady', 'joined', 'left'].flatMap((d) => (['a', 'b'] as const).map(async (on) => [`${d}@${on}`, await statusOn(on, `nr-${d}`)]))));

  it('rebuilds both copies, re-asserts what changed during the outage, and reads no device falsely offline', async () => {
    await runtimeOnB('nr-steady');
    const leaving = await runtimeOnB('nr-left');
    const joinedKey = await registerDevice(replicas.a, 'nr-joined', `user:${ALICE}`, alice);
    await eventually('A to see both devices B holds', async () => (await statusOn('a', 'nr-steady')) === 'online' && (await statusOn('a', 'nr-left')) === 'online');

    await nats.halt();
    // During the outage: one tunnel goes away, one comes up, on B; their directory writes cannot land.
    leaving.kill('SIGTERM');
    await leaving.exited;
    const dir = join(home, 'nr-joined');
    const joining = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'svc'), SVC_SERVER_URL: replicas.b.url, SVC_CA_FILE: replicas.a.tunnel!.caFile, SVC_API_KEY: joinedKey });
    runtimes.push(joining);
    await joining.waitForLog('tunnel up');
    await eventually('B to see its own tunnels as they are', async () => (await statusOn('b', 'nr-joined')) === 'online' && (await statusOn('b', 'nr-left')) === 'offline');
    await nats.restart();

    const expected = { 'steady@a': 'online', 'steady@b': 'online', 'joined@a': 'online', 'joined@b': 'online', 'left@a': 'offline', 'left@b': 'offline' };
    let last: Record<string, string> = {};
    await eventually('both replicas to agree with the tunnels', async () => JSON.stringify((last = await statuses())) === JSON.stringify(expected), {
      describe: () => `last: ${JSON.stringify(last)}; B: ${replicas.b.output().slice(-2000)}`,
    });
    // Past the replicas' liveness TTL, nothing reads falsely offline (each hears the other's heartbeats again).
    const settled = Date.now();
    while (Date.now() - settled < 2 * REPLICA_LIVENESS_TTL_MS) {
      expect(await statuses()).toEqual(expected);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    for (const device of ['nr-steady', 'nr-joined']) {
      const answer = await replicas.a.api.post('/api/exec', { device, command: ['echo', device] }, alice);
      expect(answer.body).toMatchObject({ exit_code: 0, output: `${device}\n` });
    }
  });
});
