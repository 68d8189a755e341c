/**
 * The one behaviour both storage adapters must show. Each adapter's spec calls
 * `describeStorageContract` with a function opening a fresh, empty store; every test opens its own.
 * Writes and transactions live in contract/, next to the test-only collections.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ALL_COLLECTIONS } from './records';
import { type Collection, type CollectionDef, defineCollection, type FieldType, type Filter, type Storage } from './storage.port';
import {
  at,
  CONTRACT_COLLECTIONS,
  expectConflict,
  ids,
  type OpenStorage,
  type Pair,
  PAIRS,
  sampleThings,
  T0,
  type Thing,
  thing,
  THINGS,
} from './contract/contract-fixtures';
import { describeWriteContract } from './contract/writes.contract';
import { describeReadContract } from './contract/reads.contract';
import { describeTransactionContract } from './contract/transactions.contract';

export type { OpenStorage } from './contract/contract-fixtures';

export function describeStorageContract(name: string, open: OpenStorage): void {
  describe(`${name}: storage contract`, () => {
    let storage: Storage;
    let things: Collection<Thing>;
    let pairs: Collection<Pair>;
    const seed = async () => {
      for (const sample of sampleThings()) await things.insert(sample);
    };

    beforeEach(async () => {
      storage = await open(CONTRACT_COLLECTIONS);
      things = storage.collection(THINGS);
      pairs = storage.collection(PAIRS);
    });
    afterEach(() => storage.close());

    describe('documents', () => {
      it('round-trips every field type', async () => {
        const full: Thing = {
          id: 'full',
          name: 'full',
          rank: -12.25,
          active: false,
          createdAt: new Date('2024-02-29T23:59:59.123Z'),
          tags: ['x', 'y', 'x'],
          meta: { nested: { list: [1, { deep: true }, null], empty: {}, text: 'é"\\' }, none: null },
          note: null,
          expiresAt: new Date('2091-01-01T00:00:00.000Z'),
        };
        await things.insert(full);
        const found = await things.findOne({ id: 'full' });
        expect(found).toEqual(full);
        expect(found?.createdAt).toBeInstanceOf(Date);
        expect(await things.find({})).toEqual([full]);
      });

      it('round-trips json arrays and leaves missing fields missing', async () => {
        await things.insert({ id: 'sparse', name: 'sparse', rank: 0, active: true, createdAt: T0, meta: [{ a: [] }, 'b', 3] });
        const found = await things.findOne({ id: 'sparse' });
        expect(found).toEqual({ id: 'sparse', name: 'sparse', rank: 0, active: true, createdAt: T0, meta: [{ a: [] }, 'b', 3] });
        expect(found).not.toHaveProperty('tags');
        expect(found).not.toHaveProperty('note');
      });

      it('answers null and an empty list when nothing matches', async () => {
        expect(await things.findOne({ id: 'nope' })).toBeNull();
        expect(await things.find({ name: 'nope' })).toEqual([]);
      });

      it('rejects unknown fields and unregistered collections', async () => {
        await expect(things.find({ bogus: 1 } as never)).rejects.toThrow('Unknown field "bogus"');
        await expect(things.insert({ ...sampleThings()[0], bogus: 1 } as never)).rejects.toThrow('Unknown field "bogus"');
        const other = defineCollection<{ id: string }>({ name: 'contract_other', fields: {}, conflictMessage: 'x' });
        expect(() => storage.collection(other)).toThrow('not registered');
      });
    });

    describe('filters', () => {
      beforeEach(seed);
      const cases: [string, Record<string, unknown>, string[]][] = [
        ['string equality', { name: 'bravo' }, ['t2']],
        ['number equality', { rank: 2 }, ['t3', 't4']],
        ['boolean true', { active: true }, ['t1', 't3', 't5']],
        ['boolean false', { active: false }, ['t2', 't4']],
        ['date equality', { createdAt: at(3) }, ['t3']],
        ['id', { id: 't4' }, ['t4']],
        ['id in', { id: { in: ['t1', 't5', 'zz'] } }, ['t1', 't5']],
        ['several fields (and)', { active: true, rank: 3 }, ['t1']],
        ['array contains', { tags: 'red' }, ['t1', 't4']],
        ['in on a scalar field', { name: { in: ['alpha', 'delta', 'nope'] } }, ['t1', 't4']],
        ['in on an array field', { tags: { in: ['green', 'blue'] } }, ['t1', 't2']],
        ['in with null also matches missing', { note: { in: ['first', null] } }, ['t1', 't2', 't3', 't5']],
        ['empty in', { name: { in: [] } }, []],
        ['null matches null and missing', { note: null }, ['t2', 't3', 't5']],
        ['null on an array field matches missing', { tags: null }, ['t5']],
        ['ne null', { note: { ne: null } }, ['t1', 't4']],
        ['ne value includes missing', { note: { ne: 'first' } }, ['t2', 't3', 't4', 't5']],
        ['ne on a number', { rank: { ne: 2 } }, ['t1', 't2', 't5']],
        ['ne on an array field', { tags: { ne: 'red' } }, ['t2', 't3', 't5']],
        ['date gt', { createdAt: { gt: at(3) } }, ['t4', 't5']],
        ['date gte', { createdAt: { gte: at(3) } }, ['t3', 't4', 't5']],
        ['date lt', { createdAt: { lt: at(2) } }, ['t1']],
        ['date lte and gt', { createdAt: { gt: at(1), lte: at(3) } }, ['t2', 't3']],
        ['number range', { rank: { gte: 2, lt: 5 } }, ['t1', 't3', 't4']],
        ['fractional number', { rank: { gt: 5 } }, ['t5']],
        ['string range', { name: { gte: 'bravo', lt: 'delta' } }, ['t2', 't3']],
        ['id range', { id: { gt: 't3' } }, ['t4', 't5']],
        ['or', { or: [{ name: 'alpha' }, { tags: 'green' }, { rank: 99 }] }, ['t1', 't2']],
        ['or combined with and', { active: true, or: [{ rank: { gt: 4 } }, { tags: 'blue' }] }, ['t1', 't5']],
        ['nested or', { or: [{ or: [{ id: 't1' }, { id: 't2' }] }, { note: 'fourth' }] }, ['t1', 't2', 't4']],
        ['a value that looks like SQL', { name: "it's; DROP TABLE x --" }, ['t5']],
        ['json field null', { meta: null }, ['t2', 't3', 't5']],
        ['json field ne null', { meta: { ne: null } }, ['t1', 't4']],
      ];
      it.each(cases)('%s', async (_label, filter, expected) => {
        expect(ids(await things.find(filter as Filter<Thing>))).toEqual(expected);
        expect(await things.count(filter as Filter<Thing>)).toBe(expected.length);
      });

      it('null on a json field also matches a top-level array holding null, as in MongoDB', async () => {
        await things.insert(thing('t6', { meta: [7, null] }));
        await things.insert(thing('t7', { meta: { inner: null } }));
        expect(ids(await things.find({ meta: null }))).toEqual(['t2', 't3', 't5', 't6']);
        expect(ids(await things.find({ meta: { ne: null } }))).toEqual(['t1', 't4', 't7']);
      });

      it('rejects an empty or and conditions it cannot express', async () => {
        await expect(things.find({ or: [] })).rejects.toThrow('"or"');
        await expect(things.find({ meta: 'x' } as never)).rejects.toThrow('json field');
        await expect(things.find({ rank: {} } as never)).rejects.toThrow('Invalid condition');
      });
    });

    describe('find options and count', () => {
      beforeEach(seed);

      it('sorts ascending and descending, ties broken by id', async () => {
        const asc = await things.find({}, { sort: { field: 'rank', direction: 'asc' } });
        expect(asc.map((found) => found.id)).toEqual(['t2', 't3', 't4', 't1', 't5']);
        const desc = await things.find({}, { sort: { field: 'rank', direction: 'desc' } });
        expect(desc.map((found) => found.id)).toEqual(['t5', 't1', 't3', 't4', 't2']);
      });

      it('sorts by date and limits', async () => {
        const latest = await things.find({ active: true }, { sort: { field: 'createdAt', direction: 'desc' }, limit: 2 });
        expect(latest.map((found) => found.id)).toEqual(['t5', 't3']);
        expect(await things.find({}, { sort: { field: 'id', direction: 'desc' }, limit: 1 })).toEqual([sampleThings()[4]]);
        expect(await things.find({}, { limit: 0 })).toEqual([]);
      });

      it('sorts missing values first ascending', async () => {
        const byNote = await things.find({}, { sort: { field: 'note', direction: 'asc' } });
        expect(byNote.map((found) => found.id)).toEqual(['t2', 't3', 't5', 't1', 't4']);
      });

      it('counts', async () => {
        expect(await things.count({})).toBe(5);
        expect(await things.count({ tags: 'red', active: false })).toBe(1);
      });
    });

    describeReadContract(() => things, seed);

    describeWriteContract(() => ({ things, pairs }), seed);

    describe('retention', () => {
      it('deleteMany with an injected now removes exactly the expired documents', async () => {
        // Relative to T0, decades ahead, so MongoDB's TTL monitor leaves these documents alone.
        const now = at(400);
        const expiries: [string, Date | undefined][] = [['past', at(399)], ['now', now], ['later', at(401)], ['never', undefined]];
        for (const [id, expiresAt] of expiries) await things.insert(thing(id, { expiresAt }));
        expect(await things.deleteMany({ expiresAt: { lte: now } })).toBe(2);
        expect(ids(await things.find({}))).toEqual(['later', 'never']);
      });
    });

    describeTransactionContract(() => ({ storage, things, pairs }));

    it('answers ping', async () => {
      await expect(storage.ping()).resolves.toBeUndefined();
    });
  });

  describe(`${name}: the collections of records.ts`, () => {
    it('opens with ALL_COLLECTIONS and round-trips a document in each', async () => {
      const storage = await open(ALL_COLLECTIONS);
      try {
        for (const def of ALL_COLLECTIONS as readonly CollectionDef<any>[]) {
          const doc = exampleDoc(def);
          await storage.collection(def).insert(doc);
          expect(await storage.collection(def).findOne({ id: doc.id })).toEqual(doc);
          await expectConflict(storage.collection(def).insert(doc), def.conflictMessage);
        }
      } finally {
        await storage.close();
      }
    });
  });
}

function exampleDoc(def: CollectionDef<any>): { id: string } & Record<string, unknown> {
  const example: Record<FieldType, unknown> = { string: 'text', number: 7, boolean: true, date: T0, 'string[]': ['a', 'b'], json: { k: ['v'] } };
  const fields = Object.entries(def.fields as Record<string, FieldType>).map(([field, type]) => [field, example[type]]);
  return { id: `${def.name}-1`, ...Object.fromEntries(fields) };
}
