/**
 * Two server replicas on one NATS and one embedded SQLite file: replica A (in this process) and
 * replica B (a real `node apps/server/dist/main.js` process). A real runtime process tunnels to B;
 * A answers about it from the shared tunnel directory, through REST and the real `svc` binary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDeviceIdentity } from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, ReplicaProcess, startReplicaPair } from './fixtures/replica-process';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, cliHome, svcJson, svcLogin } from './fixtures/svc-cli';
import { registerDevice, TEST_DEVICE_INFO, TestServer } from './fixtures/test-server';

const ALICE = 'alice@replicas.test';
const DEVICE = 'rep-1';
const OFFLINE_DEVICE = 'rep-off';

describe('replicas on NATS: presence', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let home: string;
  let a: TestServer;
  let b: ReplicaProcess;
  let runtime: RuntimeProcess;
  let alice: Caller;
  let cli: CliHome;

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-replicas-home-'));
    replicas = await startReplicaPair(idp, nats.url);
    ({ a, b } = replicas);
    alice = await a.login(ALICE);
    const apiKey = await registerDevice(a, DEVICE, `user:${ALICE}`, alice);
    await registerDevice(a, OFFLINE_DEVICE, `user:${ALICE}`, alice);
    runtime = startRuntimeProcess(['run'], { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_SERVER_URL: b.url, SVC_CA_FILE: a.tunnel!.caFile, SVC_API_KEY: apiKey });
    await runtime.waitForLog('tunnel up');
    cli = cliHome(a);
    await svcLogin(cli, ALICE);
  });

  afterAll(async () => {
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    cli?.remove();
    rmSync(home, { recursive: true, force: true });
  });

  const statusOn = async (url: 'a' | 'b', deviceId: string) => (await (url === 'a' ? a.api : b.api).get(`/devices/${deviceId}/status`, alice)).body;
  const listedOn = async (url: 'a' | 'b') => (await (url === 'a' ? a.api : b.api).get('/devices', alice)).body as { id: string; status: string }[];

  it('device_status gives the same answer on every replica: online on A for a device tunnelled to B', async () => {
    const onB = await eventually('B to see its own tunnel', async () => {
      const status = await statusOn('b', DEVICE);
      return status.status === 'online' && status;
    });
    expect(onB).toMatchObject({ status: 'online', health: 'healthy', carrier: expect.any(String) });
    const onA = await eventually('A to see the tunnel B holds', async () => {
      const status = await statusOn('a', DEVICE);
      return status.status === 'online' && status;
    }, { describe: async () => JSON.stringify(await statusOn('a', DEVICE)) });
    expect(onA).toMatchObject({ status: 'online', health: 'healthy', carrier: onB.carrier });
    // A device that never connected reads the same on both.
    expect(await statusOn('a', OFFLINE_DEVICE)).toMatchObject({ status: 'offline', health: 'unknown' });
    expect(await statusOn('b', OFFLINE_DEVICE)).toMatchObject({ status: 'offline', health: 'unknown' });
  });

  it('devices_list on A, through the real svc binary, lists the device online', async () => {
    await eventually('A to list the device online', async () => (await listedOn('a')).find((d) => d.id === DEVICE)?.status === 'online');
    const listed = await svcJson<{ id: string; status: string }[]>(cli, ['devices', 'list']);
    const byId = Object.fromEntries(listed.map((d) => [d.id, d.status]));
    expect(byId).toEqual({ [DEVICE]: 'online', [OFFLINE_DEVICE]: 'offline' });
    expect(Object.fromEntries((await listedOn('b')).map((d) => [d.id, d.status]))).toEqual(byId);
  });

  it('both replicas write the one SQLite file at once: every write lands, and a storage-kept limit holds across them', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `rep-pending-${i}`);
    const answers = await Promise.all(
      ids.map((id, i) =>
        (i % 2 === 0 ? a.api : b.api).post('/auth/device', {
          device_id: id,
          owner_scope: `user:${ALICE}`,
          device_info: { hostname: id, ...TEST_DEVICE_INFO },
          public_key: generateDeviceIdentity().publicKey,
        }),
      ),
    );
    // MAX_PENDING_REGISTRATIONS_PER_SOURCE (10) counts in the shared store: ten accepted in all, not ten per replica.
    const accepted = ids.filter((_, i) => answers[i].status === 201);
    expect(accepted).toHaveLength(10);
    expect(answers.filter((answer) => answer.status !== 201).map((answer) => answer.status)).toEqual(Array(20).fill(429));
    for (const replica of [a.api, b.api]) {
      const pending = (await replica.get('/devices?status=pending', alice)).body as { device_id: string }[];
      expect(pending.map((item) => item.device_id).sort()).toEqual([...accepted].sort());
    }
  });

  it('reads the device offline on A once its tunnel to B goes away', async () => {
    runtime.kill('SIGTERM');
    await runtime.exited;
    const onA = await eventually('A to see the device offline', async () => {
      const status = await statusOn('a', DEVICE);
      return status.status === 'offline' && status;
    });
    expect(onA).toMatchObject({ status: 'offline', health: 'unreachable' });
    expect(await statusOn('b', DEVICE)).toMatchObject({ status: 'offline', health: 'unreachable' });
  });
});
