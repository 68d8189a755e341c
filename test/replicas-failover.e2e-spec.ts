/**
 * `kill -9` of replica B (a real server process) while a caller on replica A has a stream open to
 * a device B holds: the caller gets a clean error at once, not a hang; A reads B's devices offline
 * within the heartbeat TTL (no goodbye from B: only its silence); the runtime, which reaches the
 * replicas through a plain TCP balancer, re-homes on A, and operations work again there.
 */
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { startTcpBalancer, TcpBalancer } from './fixtures/tcp-balancer';
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
  const fleet = useReplicaFleet({ users: { alice: ALICE } });
  let balancer: TcpBalancer;
  const alice = (on: ReplicaName) => fleet.user('alice').on(on);
  const status = async (on: ReplicaName, device: string) => alice(on).route('device_status.one', { device });
  const online = async (on: ReplicaName, device: string) => (await status(on, device)).status === 'online';

  beforeAll(async () => {
    // B first while it lives, so the tunnel starts there; A takes what B cannot.
    balancer = await startTcpBalancer(() => [...(fleet.b.child.exitCode === null && fleet.b.child.signalCode === null ? [fleet.b.tunnelPort] : []), fleet.a.tunnel!.port]);
    await fleet.addDevice(DEVICE, { owner: 'alice', runtime: { on: 'a', via: balancer.port } });
    // Its runtime dials B itself: nothing re-homes it.
    await fleet.addDevice(STRANDED, { owner: 'alice', runtime: { on: 'a', via: fleet.b.tunnelPort } });
    for (const id of [DEVICE, STRANDED]) {
      await eventually(`B to hold ${id}, and A to see it`, async () => (await online('b', id)) && online('a', id));
    }
    await eventually('A to see the device B holds', () => online('a', DEVICE));
  });

  afterAll(async () => {
    await balancer?.close();
  });

  it('an exec in flight through A ends with a clean error when B dies; B\'s entries read lost within the TTL; the device re-homes on A', async () => {
    const inFlight = alice('a').attempt('device_exec', { device: DEVICE, command: ['sh', '-c', 'echo started; sleep 60'] });
    await eventually('the exec to run on the device', () => fleet.b.output().includes(`peer stream exec on device ${DEVICE}`));
    const killedAt = Date.now();
    fleet.b.child.kill('SIGKILL');
    const answer = await inFlight;
    // At once, not at the command's 60 s: the killed process's sockets close, which ends the hop (measured: ~20 ms).
    expect(Date.now() - killedAt).toBeLessThan(MARGIN_MS);
    expect(answer).toMatchObject({ ok: false, error: { status: 503, code: 'DEVICE_OFFLINE', message: expect.any(String), requestId: expect.any(String) } });

    // A device B held that nothing re-homes (its runtime dialed B directly) reads offline on A once
    // B's heartbeat is overdue: B's silence, not a goodbye, told A. Within the TTL of the kill: B's
    // last heartbeat came before it, and A counts the TTL from that beat.
    let offlineAt = 0;
    const offline = await eventually('A to read the stranded device offline', async () => {
      const asked = Date.now();
      const seen = await status('a', STRANDED);
      offlineAt = asked;
      return seen.status === 'offline' && seen;
    });
    expect(offline).toMatchObject({ status: 'offline', health: 'unreachable' });
    expect(offlineAt - killedAt).toBeLessThan(REPLICA_LIVENESS_TTL_MS + MARGIN_MS);
    expect(await alice('a').attempt('device_exec', { device: STRANDED, command: ['true'] })).toMatchObject({ ok: false, error: { status: 503, code: 'DEVICE_OFFLINE' } });

    // The runtime behind the balancer lost its tunnel with B and reconnected; the balancer now reaches A.
    await eventually('the device online again on A', () => online('a', DEVICE));
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(await alice('a').run('device_exec', { device: DEVICE, command: ['echo', 'back on A'] })).toMatchObject({ output: 'back on A\n', exit_code: 0 });
  });

  it('B started again under the same REPLICA_ID does not bring back the tunnels it held before it was killed', async () => {
    await fleet.restartB();
    // A device on the new B reads online on A once A hears B's heartbeat again.
    await fleet.addDevice('fo-witness', { owner: 'alice' });
    const witness = await fleet.stub('fo-witness', 'b');
    try {
      await eventually('A to hear the new B', () => online('a', 'fo-witness'));
      // B's old entry for the stranded device (whose runtime cannot reach the new B) was released.
      for (const on of ['a', 'b'] as const) expect(await status(on, STRANDED)).toMatchObject({ status: 'offline', health: 'unreachable' });
    } finally {
      witness.close();
    }
  });

  it('SIGTERM of B: its tunnels close telling why, B stops cleanly, and its runtimes move to A through the balancer', async () => {
    const deviceId = 'fo-3';
    const moving = (await fleet.addDevice(deviceId, { owner: 'alice', runtime: { on: 'a', via: balancer.port } })).runtime!;
    await eventually('B to hold fo-3', () => online('b', deviceId));
    const after = moving.stderr.length;
    const stopping = fleet.b.stop();
    const lost = await moving.waitForLog('tunnel lost', after);
    expect(String(lost.reason)).toMatch(/shutting down/);
    await stopping;
    // A clean stop: Nest re-raises the signal once its shutdown hooks are done.
    expect(fleet.b.child.exitCode === 0 || fleet.b.child.signalCode === 'SIGTERM').toBe(true);
    expect(fleet.b.output()).not.toMatch(/"level":"error"/);
    await moving.waitForLog('tunnel up', after);
    await eventually('fo-3 online on A', () => online('a', deviceId));
    expect(await alice('a').run('device_exec', { device: deviceId, command: ['echo', 'moved'] })).toMatchObject({ output: 'moved\n', exit_code: 0 });
  });
});
