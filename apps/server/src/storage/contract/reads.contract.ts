/** Projections and keyset paging: part of the storage contract (see storage.contract.ts). */
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { Collection } from '../storage.port';
import { at, sampleThings, type Thing, thing } from './contract-fixtures';

type Things = () => Collection<Thing>;

export function describeReadContract(things: Things, seed: () => Promise<void>): void {
  describe('findFields', () => {
    beforeEach(seed);

    it('answers the id and the named fields with their types, missing and null as null', async () => {
      const found = await things().findFields({}, ['name', 'active', 'createdAt', 'tags', 'meta', 'note'], { sort: { field: 'id', direction: 'asc' } });
      expect(found).toEqual(
        sampleThings().map(({ id, name, active, createdAt, tags, meta, note }) => ({ id, name, active, createdAt, tags: tags ?? null, meta: meta ?? null, note: note ?? null })),
      );
      expect(found[0].createdAt).toBeInstanceOf(Date);
      expect(Object.keys(found[0]).sort()).toEqual(['active', 'createdAt', 'id', 'meta', 'name', 'note', 'tags']);
    });

    it('filters, sorts and limits like find', async () => {
      const found = await things().findFields({ tags: 'red' }, ['rank'], { sort: { field: 'rank', direction: 'desc' }, limit: 1 });
      expect(found).toEqual([{ id: 't1', rank: 3 }]);
      expect(await things().findFields({ active: false }, [])).toEqual([{ id: 't2' }, { id: 't4' }]);
      expect(await things().findFields({}, ['name'], { limit: 0 })).toEqual([]);
    });

    it('keeps json strings, numbers and booleans apart', async () => {
      await things().insert(thing('j1', { meta: 'text' }));
      await things().insert(thing('j2', { meta: 12 }));
      await things().insert(thing('j3', { meta: false, active: false }));
      const found = await things().findFields({ id: { in: ['j1', 'j2', 'j3'] } }, ['meta', 'active'], { sort: { field: 'id', direction: 'asc' } });
      expect(found).toEqual([
        { id: 'j1', meta: 'text', active: true },
        { id: 'j2', meta: 12, active: true },
        { id: 'j3', meta: false, active: false },
      ]);
    });

    it('rejects unknown fields', async () => {
      await expect(things().findFields({}, ['bogus' as never])).rejects.toThrow('Unknown field "bogus"');
    });
  });

  describe('keyset paging on id', () => {
    const walk = async (pageSize: number, during?: (page: number) => Promise<void>) => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; ; page++) {
        const found = await things().find(after === undefined ? {} : { id: { gt: after } }, { sort: { field: 'id', direction: 'asc' }, limit: pageSize });
        seen.push(...found.map((doc) => doc.id));
        if (found.length < pageSize) return seen;
        after = found[found.length - 1].id;
        await during?.(page);
      }
    };

    it('visits every document once, in id order', async () => {
      for (let i = 0; i < 7; i++) await things().insert(thing(`p${i}`, { createdAt: at(i) }));
      expect(await walk(3)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    });

    it('is stable under inserts: nothing is skipped or repeated, new ids past the cursor appear', async () => {
      for (const id of ['b', 'd', 'f', 'h']) await things().insert(thing(id));
      const seen = await walk(2, async (page) => {
        if (page === 0) {
          await things().insert(thing('a'));
          await things().insert(thing('g'));
        }
      });
      expect(seen).toEqual(['b', 'd', 'f', 'g', 'h']);
    });
  });
}
