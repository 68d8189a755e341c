/**
 * Issue 18, test 6 with three replicas: SIGTERM of one replica (a server process from the build,
 * with DRAIN_SECS) closes its tunnels over the drain window, and its runtimes, which dial a plain
 * round-robin TCP balancer in front of all three (as HAProxy in `mode tcp` would be), come back
 * spread over BOTH survivors, not piled onto one. The runtimes are the runtime's own tunnel loop
 * (bench/fleet-worker.js in a few worker processes), so each reconnects with its own backoff.
 * Not on useReplicaFleet: three replicas behind a round-robin balancer, with the bench's tunnel workers, as bench/replica-fleet.js builds them (a balancer that knows nothing of a drain is the point).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './fixtures/eventually';

// The bench's JavaScript modules, as replicas-scale uses them.
const { onlineCount, startReplicaFleet } = require('../bench/replica-fleet');
const { startIssuer } = require('../bench/device-listing');

const RUNTIMES = 36;
const DRAIN_SECS = 2;
const EMAIL = 'fleet@replica-drain-spread.test';

describe('replicas on NATS: SIGTERM of one of three replicas spreads its runtimes over both survivors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-spread-'));
  const stops: (() => Promise<unknown>)[] = [];
  let replicas: any[];
  let fleet: any;
  let tunnels: any;
  let ids: string[];
  let auth: Record<string, string>;

  beforeAll(async () => {
    const issuer = await startIssuer();
    stops.push(() => issuer.close());
    // The balancer rotates over every replica whose process runs, draining or not: it knows nothing of a drain.
    const world = await startReplicaFleet({ dir, issuer, runtimes: RUNTIMES, email: EMAIL, prefix: 'sp', env: { DRAIN_SECS: String(DRAIN_SECS) }, workers: 2, upWithinMs: 120_000 });
    stops.push(() => world.stop());
    ({ replicas, fleet, tunnels, ids, auth } = world);
  }, 180_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('every runtime the stopped replica held comes back, some on each survivor; all devices online on both survivors', async () => {
    const [a, b, victim] = replicas;
    const held = () => replicas.map((replica) => tunnels.held(replica.tunnelPort));
    const before = held();
    // Round robin over three: each holds a share.
    for (const count of before) expect(count).toBeGreaterThan(RUNTIMES / 6);
    const moving = before[2];
    const downsBefore = fleet.downs;
    await victim.stop();
    expect(victim.child.exitCode === 0 || victim.child.signalCode === 'SIGTERM').toBe(true);
    await eventually('the stopped replica\'s runtimes back on the survivors', () => fleet.downs - downsBefore >= moving && fleet.upCount() === RUNTIMES, {
      describe: () => `${fleet.downs - downsBefore}/${moving} lost, ${fleet.upCount()}/${RUNTIMES} up; held ${JSON.stringify(held())}`,
    });
    const after = held();
    process.stderr.write(`replicas-drain-spread: held before ${JSON.stringify(before)}, after ${JSON.stringify(after)}\n`);
    expect(after[2]).toBe(0);
    expect(after[0] + after[1]).toBe(RUNTIMES);
    // Both survivors took some of them.
    expect(after[0]).toBeGreaterThan(before[0]);
    expect(after[1]).toBeGreaterThan(before[1]);
    for (const survivor of [a, b]) await eventually(`${survivor.id} to list every device online`, async () => (await onlineCount(survivor, auth, ids)) === RUNTIMES);
  }, 120_000);
});
