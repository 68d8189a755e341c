import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { describeTicketStoreContract } from '../common/ticket-store.contract';
import { eventually } from '../../../../test/fixtures/eventually';
import { NatsServerHandle, startNatsServer } from '../../../../test/fixtures/nats-server';
import { NatsTicketStore } from './nats-ticket-store';

let nats: NatsServerHandle;
const connections: NatsConnection[] = [];
beforeAll(async () => {
  nats = await startNatsServer();
});
afterAll(async () => {
  for (const nc of connections) await nc.close();
  await nats?.stop();
});

async function store(namespace: string): Promise<NatsTicketStore> {
  const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  connections.push(nc);
  return NatsTicketStore.open(nc, namespace);
}

describeTicketStoreContract('NatsTicketStore', () => store(`t${randomUUID().slice(0, 8)}`));

it('a ticket put on one replica is taken once on another', async () => {
  const namespace = `t${randomUUID().slice(0, 8)}`;
  const [a, b] = [await store(namespace), await store(namespace)];
  await a.put('d'.repeat(64), '{"z":3}');
  const taken = await Promise.all([a.take('d'.repeat(64)), b.take('d'.repeat(64)), b.take('d'.repeat(64))]);
  expect(taken.filter((value) => value !== null)).toEqual(['{"z":3}']);
});

// Last: it empties the shared NATS.
it('works again once NATS came back without its store (the bucket is created again)', async () => {
  const namespace = `t${randomUUID().slice(0, 8)}`;
  const [a, b] = [await store(namespace), await store(namespace)];
  await nats.halt();
  await nats.restart({ wipe: true });
  const hash = 'e'.repeat(64);
  await eventually('a ticket to be put again', () => a.put(hash, '{"y":1}').then(() => true));
  expect(await b.take(hash)).toBe('{"y":1}');
});
