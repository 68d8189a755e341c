/**
 * Test 9 of issue 18: NATS restarts (same store, same port) while two replicas run. Afterwards
 * both replicas' copies of the directory are rebuilt from the bus: a device held throughout reads
 * online on both (no false offline once the replicas' TTL has passed), a device whose tunnel came
 * up during the outage is re-asserted by its holder, one whose tunnel went away during the outage
 * reads offline, and operations through the peer hop work again. Then NATS comes back with an
 * empty store (lost): the replicas create the buckets again and each writes the tunnels it holds
 * again, so both read every device online within a bound, and stay so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import type { Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { registerDevice } from './fixtures/test-server';
import { REPLICA_LIVENESS_TTL_MS } from '../apps/server/src/replicas/nats-tunnel-directory';

const ALICE = 'alice@replica-nats-restart.test';
/**
 * From nats-server ready again (empty) until the new bucket holds every tunnel again: the client's
 * reconnect wait (1 s), JetStream answering, the buckets created and the entries written again
 * take about a second here; the rest is room for a loaded 2-core machine.
 */
const WIPED_REWRITTEN_MS = 10_000;

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
  /** Whether the tunnel directory's bucket on NATS has an entry for each device (keys: base64url of the id). */
  const bucketHolds = async (nc: NatsConnection, deviceIds: string[]): Promise<boolean> => {
    try {
      // A short timeout: a request sent while this client reconnects would otherwise wait 5 s and skew the time measured.
      const kv = await nc.jetstream({ timeout: 500 }).views.kv('svc_tunnels', { bindOnly: true });
      const keys = new Set<string>();
      for await (const key of await kv.keys()) keys.add(key);
      return deviceIds.every((id) => keys.has(Buffer.from(id).toString('base64url')));
    } catch {
      return false;
    }
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

  it('NATS back without its store (empty): the buckets are created again, each replica writes its tunnels again, both agree within the bound, and the peer hop works', async () => {
    // One on each replica, so that both must write theirs again.
    await runtimeOnB('nw-on-b');
    const apiKey = await registerDevice(replicas.a, 'nw-on-a', `user:${ALICE}`, alice);
    const dir = join(home, 'nw-on-a');
    const onA = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'svc'), SVC_SERVER_URL: replicas.a.url, SVC_CA_FILE: replicas.a.tunnel!.caFile, SVC_API_KEY: apiKey });
    runtimes.push(onA);
    await onA.waitForLog('tunnel up');
    const expected = { 'on-b@a': 'online', 'on-b@b': 'online', 'on-a@a': 'online', 'on-a@b': 'online' };
    const wiped = async () => Object.fromEntries(await Promise.all(['on-b', 'on-a'].flatMap((d) => (['a', 'b'] as const).map(async (on) => [`${d}@${on}`, await statusOn(on, `nw-${d}`)]))));
    await eventually('both replicas to see both', async () => JSON.stringify(await wiped()) === JSON.stringify(expected));

    const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    try {
      await nats.halt();
      await nats.restart({ wipe: true });
      const back = Date.now();
      let rewrittenAfter: number | undefined;
      // From the restart on, at every look, both replicas read both online (the old entries serve
      // until the new bucket has each), until the new bucket holds both (each replica
      // wrote its own again) and twice the liveness TTL has passed since (heartbeats in a new bucket too).
      while (rewrittenAfter === undefined || Date.now() - back < rewrittenAfter + 2 * REPLICA_LIVENESS_TTL_MS) {
        expect(await wiped()).toEqual(expected);
        if (rewrittenAfter === undefined && (await bucketHolds(nc, ['nw-on-b', 'nw-on-a']))) rewrittenAfter = Date.now() - back;
        expect(Date.now() - back).toBeLessThan(rewrittenAfter === undefined ? WIPED_REWRITTEN_MS : Infinity);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      process.stderr.write(`replicas-nats-restart: the tunnels were written again ${rewrittenAfter} ms after NATS came back empty\n`);
      expect(replicas.b.output()).toMatch(/tunnel directory rebuilt from a new bucket: \d+ tunnel\(s\) held here written again/);
    } finally {
      await nc.close();
    }
    // Through the replica that does not hold the device, both ways.
    for (const [on, device] of [['a', 'nw-on-b'], ['b', 'nw-on-a']] as const) {
      const answer = await replicas[on].api.post('/api/exec', { device, command: ['echo', device] }, alice);
      expect(answer.body).toMatchObject({ exit_code: 0, output: `${device}\n` });
    }
  });
});
