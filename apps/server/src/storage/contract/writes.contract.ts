/** Updates, deletes and uniqueness: part of the storage contract (see storage.contract.ts). */
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { Collection } from '../storage.port';
import { at, expectConflict, ids, type Pair, sampleThings, type Thing, thing } from './contract-fixtures';

type Collections = () => { things: Collection<Thing>; pairs: Collection<Pair> };

export function describeWriteContract(collections: Collections, seed: () => Promise<void>): void {
  describe('updates', () => {
    beforeEach(seed);

    it('updateOne sets the given fields of the matching document', async () => {
      const set = { note: 'set', rank: 10, active: true, createdAt: at(9), tags: ['a', 'b'], meta: { m: [1, { n: null }] } };
      expect(await collections().things.updateOne({ id: 't2' }, set)).toBe(true);
      expect(await collections().things.findOne({ id: 't2' })).toEqual({ ...sampleThings()[1], ...set });
      expect(await collections().things.findOne({ id: 't1' })).toEqual(sampleThings()[0]);
    });

    it('updateOne changes at most one document', async () => {
      expect(await collections().things.updateOne({ active: true }, { note: 'one' })).toBe(true);
      expect(await collections().things.count({ note: 'one' })).toBe(1);
    });

    it('updateOne answers whether a document matched', async () => {
      expect(await collections().things.updateOne({ id: 'nope' }, { rank: 1 })).toBe(false);
      expect(await collections().things.updateOne({ id: 't1' }, {})).toBe(true);
      expect(await collections().things.updateOne({ id: 'nope' }, {})).toBe(false);
    });

    it('updateMany sets the fields of every match and counts them', async () => {
      expect(await collections().things.updateMany({ rank: 2 }, { active: true, tags: ['x'] })).toBe(2);
      expect(ids(await collections().things.find({ active: true }))).toEqual(['t1', 't3', 't4', 't5']);
      expect(ids(await collections().things.find({ tags: 'x' }))).toEqual(['t3', 't4']);
      expect(await collections().things.updateMany({ rank: 99 }, { active: true })).toBe(0);
    });

    it('an undefined value removes the field, null keeps it as null', async () => {
      expect(await collections().things.updateOne({ id: 't1' }, { note: undefined, tags: undefined, meta: null, rank: 4 })).toBe(true);
      const updated = await collections().things.findOne({ id: 't1' });
      expect(updated).toEqual({ id: 't1', name: 'alpha', rank: 4, active: true, createdAt: at(1), meta: null });
      expect(updated).not.toHaveProperty('note');
      expect(updated).not.toHaveProperty('tags');
      expect(await collections().things.updateMany({}, { note: undefined })).toBe(5);
      expect(await collections().things.count({ note: null })).toBe(5);
      expect(await collections().things.count({ note: { ne: null } })).toBe(0);
    });

    it('refuses to change the id', async () => {
      await expect(collections().things.updateOne({ id: 't1' }, { id: 'other' })).rejects.toThrow('cannot be changed');
    });
  });

  describe('compare-and-set', () => {
    beforeEach(seed);

    it('of concurrent updateOne calls filtering on the same revision, exactly one writes', async () => {
      const { things } = collections();
      await things.insert(thing('cas', { note: 'r0' }));
      const writers = Array.from({ length: 10 }, (_, i) => things.updateOne({ id: 'cas', note: 'r0' }, { note: `r1-${i}`, rank: i }));
      const won = await Promise.all(writers);
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = won.indexOf(true);
      expect(await things.findOne({ id: 'cas' })).toMatchObject({ note: `r1-${winner}`, rank: winner });
    });

    it('a missing revision matches null once', async () => {
      const { things } = collections();
      expect(await things.updateOne({ id: 't3', note: null }, { note: 'r1' })).toBe(true);
      expect(await things.updateOne({ id: 't3', note: null }, { note: 'r2' })).toBe(false);
      expect((await things.findOne({ id: 't3' }))?.note).toBe('r1');
    });
  });

  describe('array conditions follow writes', () => {
    beforeEach(seed);

    it('after updates, deletes and duplicate elements', async () => {
      const { things } = collections();
      await things.updateOne({ id: 't2' }, { tags: ['red', 'red', 'teal'] });
      await things.updateMany({ id: { in: ['t1', 't4'] } }, { tags: undefined });
      await things.deleteOne({ id: 't3' });
      await things.insert(thing('t6', { tags: ['teal'] }));
      expect(ids(await things.find({ tags: 'red' }))).toEqual(['t2']);
      expect(ids(await things.find({ tags: { in: ['teal', 'blue'] } }))).toEqual(['t2', 't6']);
      expect(ids(await things.find({ tags: null }))).toEqual(['t1', 't4', 't5']);
      expect(ids(await things.find({ tags: { ne: 'teal' } }))).toEqual(['t1', 't4', 't5']);
      expect(await things.count({ tags: { gte: 'r', lt: 's' } })).toBe(1);
    });

    it('an update of other fields keeps the elements', async () => {
      const { things } = collections();
      await things.updateOne({ id: 't1' }, { rank: 9 });
      expect(ids(await things.find({ tags: 'blue' }))).toEqual(['t1']);
    });
  });

  describe('deletes', () => {
    beforeEach(seed);

    it('deleteOne removes one matching document', async () => {
      expect(await collections().things.deleteOne({ active: false })).toBe(true);
      expect(await collections().things.count({})).toBe(4);
      expect(await collections().things.count({ active: false })).toBe(1);
      expect(await collections().things.deleteOne({ id: 'nope' })).toBe(false);
    });

    it('deleteMany removes every match and counts them', async () => {
      expect(await collections().things.deleteMany({ tags: 'red' })).toBe(2);
      expect(ids(await collections().things.find({}))).toEqual(['t2', 't3', 't5']);
      expect(await collections().things.deleteMany({ tags: 'red' })).toBe(0);
      expect(await collections().things.deleteMany({})).toBe(3);
    });
  });

  describe('uniqueness', () => {
    beforeEach(seed);

    it('a taken id raises ConflictError with the definition message', async () => {
      await expectConflict(collections().things.insert(thing('t1', { name: 'fresh' })), 'Thing already exists');
      expect(await collections().things.count({})).toBe(5);
      expect((await collections().things.findOne({ id: 't1' }))?.name).toBe('alpha');
    });

    it('a taken unique field raises ConflictError', async () => {
      await expectConflict(collections().things.insert(thing('t9', { name: 'alpha' })), 'Thing already exists');
      expect(await collections().things.count({})).toBe(5);
    });

    it('a compound unique index conflicts only when every field matches', async () => {
      const { pairs } = collections();
      await pairs.insert({ id: 'p1', left: 'a', right: 'b' });
      await pairs.insert({ id: 'p2', left: 'a', right: 'c' });
      await pairs.insert({ id: 'p3', left: 'b', right: 'b' });
      await expectConflict(pairs.insert({ id: 'p4', left: 'a', right: 'b', label: 'dup' }), 'Pair already exists');
      expect(await pairs.count({})).toBe(3);
    });

    it('a missing unique field counts as null, as in MongoDB', async () => {
      const { pairs } = collections();
      await pairs.insert({ id: 'p1', left: 'a' });
      await expectConflict(pairs.insert({ id: 'p2', left: 'a', right: null }), 'Pair already exists');
      await pairs.insert({ id: 'p3', left: 'b' });
      expect(await pairs.count({ right: null })).toBe(2);
    });

    it('updates that would break uniqueness raise ConflictError', async () => {
      const { things, pairs } = collections();
      await expectConflict(things.updateOne({ id: 't2' }, { name: 'alpha' }), 'Thing already exists');
      expect((await things.findOne({ id: 't2' }))?.name).toBe('bravo');
      await pairs.insert({ id: 'p1', left: 'a', right: 'b' });
      await pairs.insert({ id: 'p2', left: 'a', right: 'c' });
      // Outside a transaction MongoDB may have updated some documents before the conflict.
      await expectConflict(pairs.updateMany({ left: 'a' }, { right: 'z' }), 'Pair already exists');
    });
  });
}
