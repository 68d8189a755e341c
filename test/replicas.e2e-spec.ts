/**
 * Two server replicas on one NATS and one embedded SQLite file: replica A (in this process) and
 * replica B (a real `node apps/server/dist/main.js` process). A real runtime process tunnels to B;
 * A answers about it from the shared tunnel directory, by name and through the real `svc` binary.
 */
import { generateDeviceIdentity } from '@svc/common';
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { TEST_DEVICE_INFO } from './fixtures/test-server';

const ALICE = 'alice@replicas.test';
const DEVICE = 'rep-1';
const OFFLINE_DEVICE = 'rep-off';

describe('replicas on NATS: presence', () => {
  const fleet = useReplicaFleet({
    users: { alice: ALICE },
    devices: { [DEVICE]: { owner: 'alice', runtime: { on: 'b' } }, [OFFLINE_DEVICE]: { owner: 'alice' } },
  });

  const statusOn = (on: ReplicaName, device: string) => fleet.user('alice').on(on).route('device_status.one', { device });
  const listedOn = async (on: ReplicaName) => (await fleet.user('alice').on(on).run('devices_list', {})) as { id: string; status: string }[];

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
    const listed = await fleet.user('alice').svcJson<{ id: string; status: string }[]>(['devices', 'list']);
    const byId = Object.fromEntries(listed.map((d) => [d.id, d.status]));
    expect(byId).toEqual({ [DEVICE]: 'online', [OFFLINE_DEVICE]: 'offline' });
    expect(Object.fromEntries((await listedOn('b')).map((d) => [d.id, d.status]))).toEqual(byId);
  });

  it('both replicas write the one SQLite file at once: every write lands, and a storage-kept limit holds across them', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `rep-pending-${i}`);
    // The runtime's registration request (POST /auth/device, no catalog operation: the device's side of the protocol).
    const answers = await Promise.all(
      ids.map((id, i) =>
        (i % 2 === 0 ? fleet.a.api : fleet.b.api).post('/auth/device', {
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
    for (const on of ['a', 'b'] as const) {
      const pending = (await fleet.user('alice').on(on).run('devices_list', { status: 'pending' })) as { device_id: string }[];
      expect(pending.map((item) => item.device_id).sort()).toEqual([...accepted].sort());
    }
  });

  it('reads the device offline on A once its tunnel to B goes away', async () => {
    const runtime = fleet.device(DEVICE).runtime!;
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
