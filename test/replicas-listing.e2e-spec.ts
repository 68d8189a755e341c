/**
 * Issue 18, test 2 at size: devices_list of 1,000 devices, every one tunnelled to replica B (a
 * real server process; the tunnels are the runtime's own tunnel loop, a few worker processes
 * holding them, as bench/fleet-worker.js runs them), asked of replica A, which holds none. A
 * answers the same as B, and it answers from its watch-fed copy of the directory, not from the
 * bus: with NATS halted, A still lists all 1,000 online, as fast as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient, Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';

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
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-listing-'));
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let fleet: { upCount(): number; failures: string[]; stop(): Promise<void> };
  let owner: Caller;

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    // Every simulated device dials from 127.0.0.1: one address, a whole fleet (as behind a NAT).
    replicas = await startReplicaPair(idp, nats.url, { TUNNEL_MAX_CONNECTIONS_PER_ADDRESS: '100000' });
    owner = await replicas.a.login(EMAIL);
    const keys: string[] = await seedDevices(join(replicas.a.config.dataDir, 'svc.sqlite'), DEVICES, EMAIL, 'ls');
    fleet = startTunnelFleet({ keys, serverUrl: replicas.b.url, caFile: replicas.a.tunnel!.caFile, tunnel: `127.0.0.1:${replicas.b.tunnelPort}`, dir });
    await eventually('every tunnel up on B', () => fleet.upCount() === DEVICES, { timeoutMs: 240_000, intervalMs: 500, describe: () => `${fleet.upCount()}/${DEVICES} up; ${fleet.failures.slice(0, 3).join('; ')}` });
  }, 300_000);

  afterAll(async () => {
    await fleet?.stop();
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** devices_list on one replica: id → status, and how long it took. */
  async function list(api: ApiClient): Promise<{ statuses: Record<string, string>; ms: number }> {
    const started = Date.now();
    const answer = await api.get('/devices', owner);
    const ms = Date.now() - started;
    expect(answer.status).toBe(200);
    return { statuses: Object.fromEntries((answer.body as { id: string; status: string }[]).map((d) => [d.id, d.status])), ms };
  }

  it('A lists all 1,000 online, the same as B; with NATS halted, still all online and as promptly (its own copy, no bus request)', async () => {
    const allOnline = Object.fromEntries(Array.from({ length: DEVICES }, (_, i) => [`ls-${String(i).padStart(5, '0')}`, 'online']));
    // A hears B's entries through its watch: all there within a moment.
    const onA = await eventually('A to list every device online', async () => {
      const listed = await list(replicas.a.api);
      return JSON.stringify(listed.statuses) === JSON.stringify(allOnline) && listed;
    });
    expect((await list(replicas.b.api)).statuses).toEqual(allOnline);

    await nats.halt();
    try {
      const offBus = await list(replicas.a.api);
      process.stderr.write(`replicas-listing: ${DEVICES} devices listed on A in ${onA.ms} ms with NATS, ${offBus.ms} ms with NATS halted\n`);
      expect(offBus.statuses).toEqual(allOnline);
      expect(offBus.ms).toBeLessThan(PROMPT_MS);
    } finally {
      await nats.restart();
    }
  }, 120_000);
});
