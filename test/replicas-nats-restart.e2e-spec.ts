/**
 * Test 9 of issue 18: NATS restarts (same store, same port) while two replicas run. Afterwards
 * both replicas' copies of the directory are rebuilt from the bus: a device held throughout reads
 * online on both (no false offline once the replicas' TTL has passed), a device whose tunnel came
 * up during the outage is re-asserted by its holder, one whose tunnel went away during the outage
 * reads offline, and operations through the peer hop work again. Then NATS comes back with an
 * empty store (lost): the replicas create the buckets again and each writes the tunnels it holds
 * again, so both read every device online within a bound, and stay so.
 */
import { connect, type NatsConnection } from 'nats';
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { RuntimeProcess } from './fixtures/runtime-process';
import { REPLICA_LIVENESS_TTL_MS } from '../apps/server/src/replicas/nats-tunnel-directory';

const ALICE = 'alice@replica-nats-restart.test';
/**
 * From nats-server ready again (empty) until the new bucket holds every tunnel again: the client's
 * reconnect wait (1 s), JetStream answering, the buckets created and the entries written again
 * take about a second here; the rest is room for a loaded 2-core machine.
 */
const WIPED_REWRITTEN_MS = 10_000;

describe('replicas on NATS: a NATS restart', () => {
  const fleet = useReplicaFleet({ users: { alice: ALICE } });
  const alice = (on: ReplicaName) => fleet.user('alice').on(on);

  const runtimeOnB = async (deviceId: string): Promise<RuntimeProcess> => (await fleet.addDevice(deviceId, { owner: 'alice', runtime: { on: 'b' } })).runtime!;
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
  const statusOn = async (on: ReplicaName, device: string): Promise<string> => (await alice(on).route('device_status.one', { device })).status;
  const statuses = async () => Object.fromEntries(await Promise.all(['steady', 'joined', 'left'].flatMap((d) => (['a', 'b'] as const).map(async (on) => [`${d}@${on}`, await statusOn(on, `nr-${d}`)]))));

  it('rebuilds both copies, re-asserts what changed during the outage, and reads no device falsely offline', async () => {
    await runtimeOnB('nr-steady');
    const leaving = await runtimeOnB('nr-left');
    await fleet.addDevice('nr-joined', { owner: 'alice' });
    await eventually('A to see both devices B holds', async () => (await statusOn('a', 'nr-steady')) === 'online' && (await statusOn('a', 'nr-left')) === 'online');

    await fleet.nats.halt();
    // During the outage: one tunnel goes away, one comes up, on B; their directory writes cannot land.
    leaving.kill('SIGTERM');
    await leaving.exited;
    await fleet.startRuntime('nr-joined', { on: 'b' });
    await eventually('B to see its own tunnels as they are', async () => (await statusOn('b', 'nr-joined')) === 'online' && (await statusOn('b', 'nr-left')) === 'offline');
    await fleet.nats.restart();

    const expected = { 'steady@a': 'online', 'steady@b': 'online', 'joined@a': 'online', 'joined@b': 'online', 'left@a': 'offline', 'left@b': 'offline' };
    let last: Record<string, string> = {};
    await eventually('both replicas to agree with the tunnels', async () => JSON.stringify((last = await statuses())) === JSON.stringify(expected), {
      describe: () => `last: ${JSON.stringify(last)}; B: ${fleet.b.output().slice(-2000)}`,
    });
    // Past the replicas' liveness TTL, nothing reads falsely offline (each hears the other's heartbeats again).
    // No condition to wait for here: what is proven is that nothing changes for 2 TTLs, looked at every 0.5 s.
    const settled = Date.now();
    while (Date.now() - settled < 2 * REPLICA_LIVENESS_TTL_MS) {
      expect(await statuses()).toEqual(expected);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    for (const device of ['nr-steady', 'nr-joined']) {
      expect(await alice('a').run('device_exec', { device, command: ['echo', device] })).toMatchObject({ exit_code: 0, output: `${device}\n` });
    }
  });

  it('NATS back without its store (empty): the buckets are created again, each replica writes its tunnels again, both agree within the bound, and the peer hop works', async () => {
    // One on each replica, so that both must write theirs again.
    await runtimeOnB('nw-on-b');
    await fleet.addDevice('nw-on-a', { owner: 'alice', runtime: { on: 'a' } });
    const expected = { 'on-b@a': 'online', 'on-b@b': 'online', 'on-a@a': 'online', 'on-a@b': 'online' };
    const wiped = async () => Object.fromEntries(await Promise.all(['on-b', 'on-a'].flatMap((d) => (['a', 'b'] as const).map(async (on) => [`${d}@${on}`, await statusOn(on, `nw-${d}`)]))));
    await eventually('both replicas to see both', async () => JSON.stringify(await wiped()) === JSON.stringify(expected));

    const nc = await connect({ servers: fleet.nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    try {
      await fleet.nats.halt();
      await fleet.nats.restart({ wipe: true });
      const back = Date.now();
      let rewrittenAfter: number | undefined;
      // From the restart on, at every look, both replicas read both online (the old entries serve
      // until the new bucket has each), until the new bucket holds both (each replica
      // wrote its own again) and twice the liveness TTL has passed since (heartbeats in a new bucket too).
      // The looks are 0.2 s apart on purpose: what is proven is that no look in that time reads otherwise.
      while (rewrittenAfter === undefined || Date.now() - back < rewrittenAfter + 2 * REPLICA_LIVENESS_TTL_MS) {
        expect(await wiped()).toEqual(expected);
        if (rewrittenAfter === undefined && (await bucketHolds(nc, ['nw-on-b', 'nw-on-a']))) rewrittenAfter = Date.now() - back;
        expect(Date.now() - back).toBeLessThan(rewrittenAfter === undefined ? WIPED_REWRITTEN_MS : Infinity);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      process.stderr.write(`replicas-nats-restart: the tunnels were written again ${rewrittenAfter} ms after NATS came back empty\n`);
      expect(fleet.b.output()).toMatch(/tunnel directory rebuilt from a new bucket: \d+ tunnel\(s\) held here written again/);
    } finally {
      await nc.close();
    }
    // Through the replica that does not hold the device, both ways.
    for (const [on, device] of [['a', 'nw-on-b'], ['b', 'nw-on-a']] as const) {
      expect(await alice(on).run('device_exec', { device, command: ['echo', device] })).toMatchObject({ exit_code: 0, output: `${device}\n` });
    }
  });
});
