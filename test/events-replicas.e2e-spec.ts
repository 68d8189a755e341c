/**
 * The event stream across replicas on NATS: what happens on replica B (a real server process) —
 * a registration request it serves, a tunnel it holds — reaches a stream open on replica A, once,
 * still filtered for A's caller; and the other way round.
 */
import { generateDeviceIdentity } from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { openEventStream, EventStreamReader } from './fixtures/event-stream';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';
import { connectRuntimeStub } from './fixtures/tunnel-runtime-stub';
import { registerDevice, TEST_DEVICE_INFO } from './fixtures/test-server';

const ALICE = 'alice@events-replicas.test';
const BOB = 'bob@events-replicas.test';

describe('GET /events with replicas on NATS', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let alice: Caller;
  let bob: Caller;
  const streams: EventStreamReader[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    replicas = await startReplicaPair(idp, nats.url);
    alice = await replicas.a.login(ALICE);
    bob = await replicas.a.login(BOB);
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
  });

  const open = async (url: string, caller: Caller) => {
    const stream = await openEventStream(url, caller);
    streams.push(stream);
    return stream;
  };

  it('a registration request served by B reaches the approver streaming from A, once, and no one else', async () => {
    const onA = await open(replicas.a.url, alice);
    const bobOnA = await open(replicas.a.url, bob);
    const answer = await replicas.b.api.post('/auth/device', {
      device_id: 'rep-ev-1',
      owner_scope: `user:${ALICE}`,
      device_info: { hostname: 'rep-ev-1', ...TEST_DEVICE_INFO },
      public_key: generateDeviceIdentity().publicKey,
    });
    expect(answer.status).toBe(201);
    const pending = await onA.next('registration.pending', (e) => e.data.request_id === answer.body.request_id);
    expect(pending.data).toMatchObject({ device_id: 'rep-ev-1', owner_scope: `user:${ALICE}` });
    // Bob's own request, served by B, arrives after it: alice's never reached him.
    await replicas.b.api.post('/auth/device', { device_id: 'rep-ev-bob', owner_scope: `user:${BOB}`, device_info: { hostname: 'h', ...TEST_DEVICE_INFO }, public_key: generateDeviceIdentity().publicKey });
    await bobOnA.next('registration.pending', (e) => e.data.device_id === 'rep-ev-bob');
    expect(bobOnA.events.filter((e) => e.data.device_id === 'rep-ev-1')).toEqual([]);
    await replicas.b.api.post('/auth/device', { device_id: 'rep-ev-1b', owner_scope: `user:${ALICE}`, device_info: { hostname: 'h', ...TEST_DEVICE_INFO }, public_key: generateDeviceIdentity().publicKey });
    await onA.next('registration.pending', (e) => e.data.device_id === 'rep-ev-1b');
    expect(onA.events.filter((e) => e.data.request_id === answer.body.request_id)).toHaveLength(1);
  });

  it("a tunnel held by B: device.online and device.offline reach A's stream; A's share reaches B's stream", async () => {
    const onA = await open(replicas.a.url, alice);
    const onB = await open(replicas.b.url, alice);
    const apiKey = await registerDevice(replicas.a, 'rep-ev-2', `user:${ALICE}`, alice);
    const stub = await connectRuntimeStub({ port: replicas.b.tunnelPort, ca: replicas.a.tunnel!.caFile, apiKey });
    await onA.next('device.online', (e) => e.data.device_id === 'rep-ev-2');
    stub.close();
    await onA.next('device.offline', (e) => e.data.device_id === 'rep-ev-2');
    expect((await replicas.a.api.post('/devices/rep-ev-2/access', { email_or_org_id: BOB, role: 'viewer' }, alice)).status).toBe(200);
    await onB.next('access.changed', (e) => e.data.device_id === 'rep-ev-2' && e.data.change === 'share_added');
    expect(onA.events.filter((e) => e.event === 'device.online' && e.data.device_id === 'rep-ev-2')).toHaveLength(1);
  });
});
