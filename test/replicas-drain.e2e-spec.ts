/**
 * SIGTERM of replica B with DRAIN_SECS: B closes its tunnels spread over the drain window (not all
 * in one instant), each runtime is told why, and every runtime moves to replica A through a plain
 * TCP balancer; operations reach them there. A peer connection from A does not hold B's stop.
 */
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { startTcpBalancer, TcpBalancer } from './fixtures/tcp-balancer';

const ALICE = 'alice@replica-drain.test';
const DRAIN_SECS = 4;
const DEVICES = ['dr-1', 'dr-2', 'dr-3'];

describe('replicas on NATS: SIGTERM drains over DRAIN_SECS', () => {
  const fleet = useReplicaFleet({ env: { DRAIN_SECS: String(DRAIN_SECS) }, users: { alice: ALICE } });
  let balancer: TcpBalancer;

  beforeAll(async () => {
    // B while it runs, A once it is gone.
    balancer = await startTcpBalancer(() => [...(fleet.b.child.exitCode === null && fleet.b.child.signalCode === null ? [fleet.b.tunnelPort] : []), fleet.a.tunnel!.port]);
  });

  afterAll(async () => {
    await balancer?.close();
  });

  const alice = (on: ReplicaName) => fleet.user('alice').on(on);
  const online = async (on: ReplicaName, device: string) => (await alice(on).route('device_status.one', { device })).status === 'online';

  it('closes its tunnels spread over the window, and the runtimes move to A', async () => {
    const runtimes = [];
    for (const deviceId of DEVICES) {
      runtimes.push((await fleet.addDevice(deviceId, { owner: 'alice', runtime: { on: 'a', via: balancer.port } })).runtime!);
      await eventually(`B to hold ${deviceId}`, () => online('b', deviceId));
    }
    // A keeps a peer connection to B open for reuse: it must not hold B's stop.
    await eventually('A to see dr-1 on B', () => online('a', 'dr-1'));
    await expect(alice('a').run('device_exec', { device: 'dr-1', command: ['true'] })).resolves.toMatchObject({ exit_code: 0 });
    const marks = runtimes.map((runtime) => runtime.stderr.length);
    const stopping = fleet.b.stop();
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
    expect({ code: fleet.b.child.exitCode, signal: fleet.b.child.signalCode }).not.toEqual({ code: null, signal: 'SIGKILL' });
    for (const deviceId of DEVICES) {
      await eventually(`${deviceId} online on A`, () => online('a', deviceId));
      expect(await alice('a').run('device_exec', { device: deviceId, command: ['echo', deviceId] })).toMatchObject({ output: `${deviceId}\n`, exit_code: 0 });
    }
  });
});
