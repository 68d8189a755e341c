/**
 * Issue 18, test 2 at size: devices_list of 1,000 devices, every one tunnelled to replica B (a
 * real server process; the tunnels are the runtime's own tunnel loop, a few worker processes
 * holding them, as bench/fleet-worker.js runs them), asked of replica A, which holds none. A
 * answers the same as B, and it answers from its watch-fed copy of the directory, not from the
 * bus: with NATS halted, A still lists all 1,000 online, as fast as before.
 */
import { join } from 'node:path';
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';

// The bench's JavaScript modules (the tunnel fleet and the seeding), as replicas-scale uses them.
const { startTunnelFleet } = require('../bench/replica-fleet');
const { seedDevices } = require('../bench/server-process');

const EMAIL = 'fleet@replica-listing.test';
const DEVICES = 1_000;
/**
 * A listing of 1,000 devices with presence takes ~0.2 s here. Had it a bus round trip, a halted
 * NATS would hold it for the client's request timeout (5 s) or fail it; 2 s leaves a loaded 2-core
 * machine room and stays well short of that.
 */
const PROMPT_MS = 2_000;

describe('replicas on NATS: devices_list of 1,000 devices on a replica holding none of them', () => {
  // Every simulated device dials from 127.0.0.1: one address, a whole fleet (as behind a NAT).
  const fleet = useReplicaFleet({ env: { TUNNEL_MAX_CONNECTIONS_PER_ADDRESS: '100000' }, users: { owner: EMAIL } });
  // The 1,000 devices are seeded into the store and tunnelled by the bench's workers, not registered one by one through the fleet.
  let tunnels: { upCount(): number; failures: string[]; stop(): Promise<void> };

  beforeAll(async () => {
    const keys: string[] = await seedDevices(join(fleet.a.config.dataDir, 'svc.sqlite'), DEVICES, EMAIL, 'ls');
    tunnels = startTunnelFleet({ keys, serverUrl: fleet.b.url, caFile: fleet.a.tunnel!.caFile, tunnel: `127.0.0.1:${fleet.b.tunnelPort}`, dir: fleet.dir });
    fleet.cleanup(() => tunnels.stop());
    await eventually('every tunnel up on B', () => tunnels.upCount() === DEVICES, { timeoutMs: 240_000, intervalMs: 500, describe: () => `${tunnels.upCount()}/${DEVICES} up; ${tunnels.failures.slice(0, 3).join('; ')}` });
  }, 300_000);

  /** devices_list on one replica: id → status, and how long it took. */
  async function list(on: ReplicaName): Promise<{ statuses: Record<string, string>; ms: number }> {
    const started = Date.now();
    const listed = (await fleet.user('owner').on(on).run('devices_list', {})) as { id: string; status: string }[];
    const ms = Date.now() - started;
    return { statuses: Object.fromEntries(listed.map((d) => [d.id, d.status])), ms };
  }

  it('A lists all 1,000 online, the same as B; with NATS halted, still all online and as promptly (its own copy, no bus request)', async () => {
    const allOnline = Object.fromEntries(Array.from({ length: DEVICES }, (_, i) => [`ls-${String(i).padStart(5, '0')}`, 'online']));
    // A hears B's entries through its watch: all there within a moment.
    const onA = await eventually('A to list every device online', async () => {
      const listed = await list('a');
      return JSON.stringify(listed.statuses) === JSON.stringify(allOnline) && listed;
    });
    expect((await list('b')).statuses).toEqual(allOnline);

    await fleet.nats.halt();
    try {
      const offBus = await list('a');
      process.stderr.write(`replicas-listing: ${DEVICES} devices listed on A in ${onA.ms} ms with NATS, ${offBus.ms} ms with NATS halted\n`);
      expect(offBus.statuses).toEqual(allOnline);
      expect(offBus.ms).toBeLessThan(PROMPT_MS);
    } finally {
      await fleet.nats.restart();
    }
  }, 120_000);
});
