/** Transactions: part of the storage contract (see storage.contract.ts). */
import { describe, expect, it } from '@jest/globals';
import type { Collection, Storage } from '../storage.port';
import { expectConflict, ids, type Pair, sleep, type Thing, thing } from './contract-fixtures';

type Subject = () => { storage: Storage; things: Collection<Thing>; pairs: Collection<Pair> };

export function describeTransactionContract(subject: Subject): void {
  describe('transactions', () => {
    it('commits every write of the work together and returns its result', async () => {
      const { storage, things, pairs } = subject();
      await things.insert(thing('kept', { rank: 1 }));
      await things.insert(thing('gone'));
      const result = await storage.transaction(async () => {
        await things.insert(thing('new'));
        await pairs.insert({ id: 'p1', left: 'l', right: 'r' });
        await things.updateOne({ id: 'kept' }, { rank: 42 });
        await things.deleteOne({ id: 'gone' });
        return 'done';
      });
      expect(result).toBe('done');
      expect(ids(await things.find({}))).toEqual(['kept', 'new']);
      expect((await things.findOne({ id: 'kept' }))?.rank).toBe(42);
      expect(await pairs.count({})).toBe(1);
    });

    it('rolls back every write when the work throws, and rethrows the error', async () => {
      const { storage, things, pairs } = subject();
      await things.insert(thing('kept', { rank: 1 }));
      await things.insert(thing('other'));
      const failure = new Error('work failed');
      const outcome = storage.transaction(async () => {
        await things.insert(thing('new'));
        await pairs.insert({ id: 'p1', left: 'l' });
        await things.updateMany({}, { rank: 42 });
        await things.deleteOne({ id: 'other' });
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(ids(await things.find({}))).toEqual(['kept', 'other']);
      expect((await things.findOne({ id: 'kept' }))?.rank).toBe(1);
      expect(await pairs.count({})).toBe(0);
    });

    it('sees its own writes', async () => {
      const { storage, things } = subject();
      await storage.transaction(async () => {
        await things.insert(thing('a'));
        expect(await things.findOne({ id: 'a' })).toEqual(thing('a'));
        await things.updateOne({ id: 'a' }, { rank: 5 });
        expect(await things.find({ rank: 5 })).toEqual([thing('a', { rank: 5 })]);
        expect(await things.count({})).toBe(1);
      });
    });

    it('keeps uncommitted writes from concurrent callers outside it', async () => {
      const { storage, things } = subject();
      await things.insert(thing('shared', { rank: 1 }));
      let signal!: () => void;
      const wrote = new Promise<void>((resolve) => (signal = resolve));
      const outcome = storage.transaction(async () => {
        await things.insert(thing('inside'));
        await things.updateOne({ id: 'shared' }, { rank: 2 });
        signal();
        // Leaves the outside calls time to run (or to queue) while these writes are uncommitted.
        await sleep(100);
        throw new Error('roll back');
      });
      await wrote;
      const readInside = things.findOne({ id: 'inside' });
      const readShared = things.findOne({ id: 'shared' });
      const writeOutside = things.insert(thing('outside'));
      await expect(outcome).rejects.toThrow('roll back');
      expect(await readInside).toBeNull();
      expect((await readShared)?.rank).toBe(1);
      await writeOutside;
      expect(ids(await things.find({}))).toEqual(['outside', 'shared']);
    });

    it('keeps concurrent transactions apart', async () => {
      const { storage, things } = subject();
      const good = storage.transaction(async () => {
        await things.insert(thing('good1'));
        await sleep(20);
        await things.insert(thing('good2'));
      });
      const bad = storage.transaction(async () => {
        await things.insert(thing('bad1'));
        await sleep(20);
        throw new Error('bad');
      });
      await good;
      await expect(bad).rejects.toThrow('bad');
      expect(ids(await things.find({}))).toEqual(['good1', 'good2']);
    });

    it('a uniqueness violation rolls back the whole transaction', async () => {
      const { storage, things, pairs } = subject();
      await things.insert(thing('taken'));
      const outcome = storage.transaction(async () => {
        await things.insert(thing('fresh'));
        await pairs.insert({ id: 'p1', left: 'x' });
        await things.insert(thing('dup', { name: 'taken' }));
      });
      await expectConflict(outcome, 'Thing already exists');
      expect(ids(await things.find({}))).toEqual(['taken']);
      expect(await pairs.count({})).toBe(0);
    });

    it('a nested transaction joins the outer one', async () => {
      const { storage, things } = subject();
      const failure = new Error('outer failed');
      const outcome = storage.transaction(async () => {
        const inner = await storage.transaction(async () => {
          await things.insert(thing('inner'));
          return 'inner result';
        });
        expect(inner).toBe('inner result');
        expect(await things.count({ id: 'inner' })).toBe(1);
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await things.count({})).toBe(0);
      await storage.transaction(() => storage.transaction(() => things.insert(thing('both'))));
      expect(ids(await things.find({}))).toEqual(['both']);
    });
  });
}
