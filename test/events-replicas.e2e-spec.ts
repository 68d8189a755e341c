/**
 * The event stream across replicas on NATS: what happens on replica B (a real server process) —
 * a registration request it serves, a tunnel it holds — reaches a stream open on replica A, once,
 * still filtered for A's caller; and the other way round. GET /events and the runtime's POST
 * /auth/device are no catalog operations: they are asked for raw.
 */
import { generateDeviceIdentity } from '@svc/common';
import { openEventStream, EventStreamReader } from './fixtures/event-stream';
import { useReplicaFleet } from './fixtures/replica-fleet';
import { TEST_DEVICE_INFO } from './fixtures/test-server';

const ALICE = 'alice@events-replicas.test';
const BOB = 'bob@events-replicas.test';

describe('GET /events with replicas on NATS', () => {
  const fleet = useReplicaFleet({ users: { alice: ALICE, bob: BOB } });
  const streams: EventStreamReader[] = [];

  // Before the fleet's teardown: an open stream would hold its replica's close.
  beforeAll(() => fleet.cleanup(() => streams.forEach((stream) => stream.close())));

  const open = async (url: string, who: 'alice' | 'bob') => {
    const stream = await openEventStream(url, fleet.user(who).caller);
    streams.push(stream);
    return stream;
  };

  it('a registration request served by B reaches the approver streaming from A, once, and no one else', async () => {
    const onA = await open(fleet.a.url, 'alice');
    const bobOnA = await open(fleet.a.url, 'bob');
    const answer = await fleet.b.api.post('/auth/device', {
      device_id: 'rep-ev-1',
      owner_scope: `user:${ALICE}`,
      device_info: { hostname: 'rep-ev-1', ...TEST_DEVICE_INFO },
      public_key: generateDeviceIdentity().publicKey,
    });
    expect(answer.status).toBe(201);
    const pending = await onA.next('registration.pending', (e) => e.data.request_id === answer.body.request_id);
    expect(pending.data).toMatchObject({ device_id: 'rep-ev-1', owner_scope: `user:${ALICE}` });
    // Bob's own request, served by B, arrives after it: alice's never reached him.
    await fleet.b.api.post('/auth/device', { device_id: 'rep-ev-bob', owner_scope: `user:${BOB}`, device_info: { hostname: 'h', ...TEST_DEVICE_INFO }, public_key: generateDeviceIdentity().publicKey });
    await bobOnA.next('registration.pending', (e) => e.data.device_id === 'rep-ev-bob');
    expect(bobOnA.events.filter((e) => e.data.device_id === 'rep-ev-1')).toEqual([]);
    await fleet.b.api.post('/auth/device', { device_id: 'rep-ev-1b', owner_scope: `user:${ALICE}`, device_info: { hostname: 'h', ...TEST_DEVICE_INFO }, public_key: generateDeviceIdentity().publicKey });
    await onA.next('registration.pending', (e) => e.data.device_id === 'rep-ev-1b');
    expect(onA.events.filter((e) => e.data.request_id === answer.body.request_id)).toHaveLength(1);
  });

  it("a tunnel held by B: device.online and device.offline reach A's stream; A's share reaches B's stream", async () => {
    const onA = await open(fleet.a.url, 'alice');
    const onB = await open(fleet.b.url, 'alice');
    await fleet.addDevice('rep-ev-2', { owner: 'alice' });
    const stub = await fleet.stub('rep-ev-2', 'b');
    await onA.next('device.online', (e) => e.data.device_id === 'rep-ev-2');
    stub.close();
    await onA.next('device.offline', (e) => e.data.device_id === 'rep-ev-2');
    await fleet.user('alice').on('a').run('device_access_add', { device: 'rep-ev-2', email_or_org_id: BOB, role: 'viewer' });
    await onB.next('access.changed', (e) => e.data.device_id === 'rep-ev-2' && e.data.change === 'share_added');
    expect(onA.events.filter((e) => e.event === 'device.online' && e.data.device_id === 'rep-ev-2')).toHaveLength(1);
  });
});
