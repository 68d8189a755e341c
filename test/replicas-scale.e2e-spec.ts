/**
 * Issue 18, test 12: three replicas (server processes from the build) on one NATS and one shared
 * SQLite file, REPLICA_SCALE_RUNTIMES (3,000) runtimes spread over them by a round-robin TCP
 * balancer (real processes: the runtime's own tunnel loop, a few workers holding them, as
 * bench/fleet-worker.js runs them), one replica killed with SIGKILL: every device it held is
 * online again on the others within 30 s, client and server both saying so. `npm run bench`
 * (section replicas) prints the same measurement.
 * Not on useReplicaFleet: three replicas and thousands of seeded devices behind a round-robin balancer, which bench/replica-fleet.js builds for this suite and `npm run bench` alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The bench's JavaScript modules, shared with `npm run bench` (section replicas).
const { rehome, startReplicaFleet } = require('../bench/replica-fleet');
const { startIssuer } = require('../bench/device-listing');

const RUNTIMES = Number(process.env.REPLICA_SCALE_RUNTIMES ?? 3000);
/** Issue 18's bound for the killed replica's devices to be online again. */
const REHOME_MS = 30_000;
const EMAIL = 'fleet@replica-scale.test';

describe('replicas on NATS at scale: 3 replicas, a fleet, one replica killed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-scale-'));
  const stops: (() => Promise<unknown>)[] = [];
  let replicas: any[];
  let fleet: any;
  let tunnels: any;
  let ids: string[];
  let auth: Record<string, string>;

  beforeAll(async () => {
    const issuer = await startIssuer();
    stops.push(() => issuer.close());
    const world = await startReplicaFleet({ dir, issuer, runtimes: RUNTIMES, email: EMAIL, prefix: 'sc', upWithinMs: 240_000 });
    stops.push(() => world.stop());
    ({ replicas, fleet, tunnels, ids, auth } = world);
  }, 300_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it(`one replica killed: its devices are online again on the others within ${REHOME_MS / 1000} s`, async () => {
    // Spread over all three, each holding a share.
    for (const replica of replicas) expect(tunnels.held(replica.tunnelPort)).toBeGreaterThan(RUNTIMES / 6);
    // Within REHOME_MS the two survivors hold all RUNTIMES tunnels themselves and list every device online.
    const { seconds, moved } = await rehome({ fleet, balancer: tunnels, victim: replicas[2], witness: replicas[0], auth, ids, survivors: replicas.slice(0, 2), deadlineMs: REHOME_MS });
    process.stderr.write(`replicas-scale: ${moved} of ${RUNTIMES} devices re-homed in ${seconds.toFixed(1)} s\n`);
    expect(moved).toBeGreaterThan(RUNTIMES / 6);
  }, 120_000);
});
