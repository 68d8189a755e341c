/**
 * The behaviour every TunnelDirectory adapter must show, seen from two replicas `a` and `b` (the
 * in-process adapter: one directory seen twice). A replica sees its own writes at once; the other
 * sees them eventually (a shared adapter's watch), so cross-replica reads poll.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TunnelDirectory, TunnelLocation } from './tunnel-directory';

export interface DirectoryPair {
  a: TunnelDirectory;
  b: TunnelDirectory;
  /** The replica ids a and b write as (live holders). */
  holderA: string;
  holderB: string;
  close(): Promise<void>;
}

const T0 = new Date('2026-01-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const TCP = { carrier: 'tcp' as const };

async function seen(directory: TunnelDirectory, deviceId: string, wanted: (location: TunnelLocation | undefined) => boolean): Promise<TunnelLocation | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const location = (await directory.locate([deviceId])).get(deviceId);
    if (wanted(location) || Date.now() > deadline) return location;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const heldBy = (holder: string) => (location: TunnelLocation | undefined) => location?.state === 'connected' && location.holder === holder;

export function describeTunnelDirectoryContract(name: string, open: () => Promise<DirectoryPair>): void {
  describe(`${name}: tunnel directory contract`, () => {
    let pair: DirectoryPair;
    beforeEach(async () => {
      pair = await open();
    });
    afterEach(() => pair.close());

    it('has no entry for a device never seen', async () => {
      expect((await pair.a.locate(['never'])).size).toBe(0);
    });

    it('locates a connected device at its holder, with its carrier, on the writer at once and on every replica', async () => {
      await pair.a.connected('d1', pair.holderA, T0, { carrier: 'quic', carrierNote: 'udp ok' });
      const expected = { state: 'connected', holder: pair.holderA, connectedAt: T0, carrier: 'quic', carrierNote: 'udp ok' };
      expect((await pair.a.locate(['d1'])).get('d1')).toEqual(expected);
      expect(await seen(pair.b, 'd1', heldBy(pair.holderA))).toEqual(expected);
    });

    it('reads lost, since then, once the holder loses the tunnel', async () => {
      await pair.a.connected('d1', pair.holderA, T0, TCP);
      await pair.a.lost('d1', pair.holderA, at(5));
      expect((await pair.a.locate(['d1'])).get('d1')).toEqual({ state: 'lost', since: at(5) });
      expect(await seen(pair.b, 'd1', (l) => l?.state === 'lost')).toEqual({ state: 'lost', since: at(5) });
    });

    it('ignores a stale "lost": the device moved to another holder first', async () => {
      await pair.a.connected('d1', pair.holderA, T0, TCP);
      await pair.b.connected('d1', pair.holderB, at(1), TCP);
      expect(await seen(pair.a, 'd1', heldBy(pair.holderB))).toMatchObject({ holder: pair.holderB });
      await pair.a.lost('d1', pair.holderA, at(2));
      expect((await pair.a.locate(['d1'])).get('d1')).toMatchObject({ state: 'connected', holder: pair.holderB });
      expect((await pair.b.locate(['d1'])).get('d1')).toMatchObject({ state: 'connected', holder: pair.holderB, connectedAt: at(1) });
    });

    it('flip-flop A → B → A: the final holder is right, and B\'s late "lost" is ignored', async () => {
      await pair.a.connected('d1', pair.holderA, T0, TCP);
      await pair.b.connected('d1', pair.holderB, at(1), TCP);
      await pair.a.connected('d1', pair.holderA, at(2), TCP);
      await pair.b.lost('d1', pair.holderB, at(3));
      for (const replica of [pair.a, pair.b]) {
        expect(await seen(replica, 'd1', (l) => heldBy(pair.holderA)(l) && l?.state === 'connected' && l.connectedAt.getTime() === at(2).getTime())).toEqual({
          state: 'connected',
          holder: pair.holderA,
          connectedAt: at(2),
          carrier: 'tcp',
        });
      }
    });

    it('connects again after a loss', async () => {
      await pair.a.connected('d1', pair.holderA, T0, TCP);
      await pair.a.lost('d1', pair.holderA, at(1));
      await pair.b.connected('d1', pair.holderB, at(2), TCP);
      expect(await seen(pair.a, 'd1', heldBy(pair.holderB))).toMatchObject({ state: 'connected', holder: pair.holderB, connectedAt: at(2) });
    });

    it('forgets a device entirely (rejected, removed), and learns it again when it reconnects', async () => {
      await pair.a.connected('d1', pair.holderA, T0, TCP);
      await seen(pair.b, 'd1', heldBy(pair.holderA));
      await pair.b.forget('d1');
      expect((await pair.b.locate(['d1'])).has('d1')).toBe(false);
      expect(await seen(pair.a, 'd1', (l) => l === undefined)).toBeUndefined();
      await pair.a.connected('d1', pair.holderA, at(1), TCP);
      expect(await seen(pair.b, 'd1', heldBy(pair.holderA))).toMatchObject({ connectedAt: at(1) });
    });

    it('answers a listing of 1,000 devices from every replica, only for the devices asked', async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `fleet-${i}`);
      await Promise.all(ids.map((id, i) => pair.a.connected(id, i % 2 === 0 ? pair.holderA : pair.holderB, T0, TCP)));
      await seen(pair.b, ids[999], (l) => l !== undefined);
      const deadline = Date.now() + 10_000;
      let located = await pair.b.locate([...ids, 'never']);
      while (located.size < ids.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        located = await pair.b.locate([...ids, 'never']);
      }
      expect(located.size).toBe(1000);
      expect(located.has('never')).toBe(false);
      expect([...located.values()].filter((l) => l.state === 'connected' && l.holder === pair.holderB)).toHaveLength(500);
    });
  });
}
