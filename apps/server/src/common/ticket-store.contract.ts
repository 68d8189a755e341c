import type { TicketStore } from './ticket-store';

/** What every TicketStore must do (the in-process map and the replicas' NATS KV). */
export function describeTicketStoreContract(name: string, create: () => Promise<TicketStore>): void {
  describe(`${name}: the TicketStore contract`, () => {
    let store: TicketStore;
    beforeEach(async () => {
      store = await create();
    });

    it('gives a ticket back once, then never again', async () => {
      await store.put('a'.repeat(64), '{"x":1}', Date.now() + 30_000);
      await expect(store.take('a'.repeat(64))).resolves.toBe('{"x":1}');
      await expect(store.take('a'.repeat(64))).resolves.toBeNull();
    });

    it('knows nothing of a ticket never put', async () => {
      await expect(store.take('b'.repeat(64))).resolves.toBeNull();
    });

    it('hands one ticket to exactly one of many concurrent takers', async () => {
      await store.put('c'.repeat(64), '{"y":2}', Date.now() + 30_000);
      const taken = await Promise.all(Array.from({ length: 8 }, () => store.take('c'.repeat(64))));
      expect(taken.filter((value) => value !== null)).toEqual(['{"y":2}']);
    });
  });
}
