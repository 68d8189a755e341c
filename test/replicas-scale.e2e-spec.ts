/**
 * Issue 18, test 12: three replicas (server processes from the build) on one NATS and one shared
 * SQLite file, REPLICA_SCALE_RUNTIMES (3,000) runtimes spread over them by a round-robin TCP
 * balancer (real processes: the runtime's own tunnel loop, a few workers holding them, as
 * bench/fleet-worker.js runs them), one replica killed with SIGKILL: every device it held is
 * online again on the others within 30 s, client and server both saying so. `npm run bench`
 * (section replicas) prints the same measurement.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The bench's JavaScript modules, shared with `npm run bench` (section replicas).
const { rehome, startBalancer, startNats, startReplicas, startTunnelFleet, until } = require('../bench/replica-fleet');
const { startIssuer } = require('../bench/device-listing');
const { seedDevices } = require('../bench/server-process');

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
    const keys: string[] = await seedDevices(join(dir, 'svc.sqlite'), RUNTIMES, EMAIL, 'sc');
    ids = keys.map((_, i) => `sc-${String(i).padStart(5, '0')}`);
    auth = { authorization: `Bearer ${issuer.token(EMAIL)}` };
    const nats = await startNats();
    stops.push(() => nats.stop());
    replicas = await startReplicas(dir, issuer, nats.url, 3);
    stops.push(() => Promise.all(replicas.map((replica) => replica.stop())));
    const live = () => replicas.filter((replica) => replica.alive());
    tunnels = await startBalancer(() => live().map((replica) => replica.tunnelPort));
    stops.push(() => tunnels.close());
    const rest = await startBalancer(() => live().map((replica) => replica.restPort));
    stops.push(() => rest.close());
    fleet = startTunnelFleet({ keys, serverUrl: `http://127.0.0.1:${rest.port}`, caFile: join(dir, 'tls', 'cert.pem'), tunnel: `127.0.0.1:${tunnels.port}`, dir });
    stops.push(() => fleet.stop());
    await until(() => fleet.upCount() === RUNTIMES, 240_000, () => `${fleet.upCount()}/${RUNTIMES} tunnels up; ${fleet.failures.slice(0, 3).join('; ')}`, 200);
  }, 300_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it(`one replica killed: its devices are online again on the others within ${REHOME_MS / 1000} s`, async () => {
    // Spread over all three, each holding a share.
    for (const replica of replicas) expect(tunnels.held(replica.tunnelPort)).toBeGreaterThan(RUNTIMES / 6);
    const { seconds, moved } = await rehome({ fleet, balancer: tunnels, victim: replicas[2], witness: replicas[0], auth, ids, deadlineMs: REHOME_MS });
    process.stderr.write(`replicas-scale: ${moved} of ${RUNTIMES} devices re-homed in ${seconds.toFixed(1)} s\n`);
    expect(moved).toBeGreaterThan(RUNTIMES / 6);
    expect(tunnels.held(replicas[0].tunnelPort) + tunnels.held(replicas[1].tunnelPort)).toBe(RUNTIMES);
  }, 120_000);
});
