import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageContract } from '../storage.contract';
import { CONTRACT_COLLECTIONS, type Thing, THINGS, thing } from '../contract/contract-fixtures';
import { defineCollection, type Filter } from '../storage.port';
import { EmbeddedStorage } from './embedded-storage';
import { projectionSql, whereSql } from './sql-filter';
import { loadSqliteDriver } from './sqlite-driver';

const Database = loadSqliteDriver();

const scratch = mkdtempSync(join(tmpdir(), 'embedded-storage-'));
let files = 0;
const freshFile = () => join(scratch, `db-${++files}`, 'nested', 'store.sqlite');

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describeStorageContract('EmbeddedStorage (:memory:)', async (defs) => EmbeddedStorage.open(':memory:', defs));
describeStorageContract('EmbeddedStorage (file)', async (defs) => EmbeddedStorage.open(freshFile(), defs));

describe('EmbeddedStorage on disk', () => {
  it('creates a private directory and file, in WAL mode', async () => {
    const file = freshFile();
    const storage = EmbeddedStorage.open(file, CONTRACT_COLLECTIONS);
    await storage.collection(THINGS).insert(thing('a'));
    await storage.close();
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('keeps documents across reopening', async () => {
    const file = freshFile();
    const first = EmbeddedStorage.open(file, CONTRACT_COLLECTIONS);
    await first.collection(THINGS).insert(thing('kept', { createdAt: new Date('2024-01-01T00:00:00Z') }));
    await first.close();
    const second = EmbeddedStorage.open(file, CONTRACT_COLLECTIONS);
    expect(await second.collection(THINGS).findOne({ id: 'kept' })).toEqual(thing('kept', { createdAt: new Date('2024-01-01T00:00:00Z') }));
    await second.close();
  });

  it('serves filters on indexed fields from their expression indexes', async () => {
    const file = freshFile();
    await EmbeddedStorage.open(file, CONTRACT_COLLECTIONS).close();
    const raw = new Database(file, { readonly: true });
    const plan = (filter: Filter<Thing>) => {
      const where = whereSql(THINGS, filter);
      const rows = raw.prepare(`EXPLAIN QUERY PLAN SELECT id FROM contract_things WHERE ${where.sql}`).all(...where.params) as { detail: string }[];
      return rows.map((row) => row.detail).join('; ');
    };
    expect(plan({ name: 'a' })).toContain('USING INDEX contract_things_index_name');
    expect(plan({ active: true, createdAt: { gt: new Date() } })).toContain('USING INDEX contract_things_index_active_createdAt');
    expect(plan({ expiresAt: { lte: new Date() } })).toContain('USING INDEX contract_things_index_expiresAt');
    expect(plan({ id: { in: ['a', 'b'] } })).toMatch(/USING (COVERING )?INDEX sqlite_autoindex_contract_things_1/);
    // An indexed string[] field is read from its element table, not from every document.
    expect(plan({ tags: { in: ['a', 'b'] } })).toContain('USING COVERING INDEX contract_things__tags_value');
    expect(plan({ tags: { in: ['a', 'b'] } })).not.toContain('json_each');
    raw.close();
  });

  it('answers a projection of indexed fields from the index alone', async () => {
    const file = freshFile();
    const covered = defineCollection<Thing>({ ...THINGS, indexes: [['active', 'id', 'name']] });
    await EmbeddedStorage.open(file, [covered]).close();
    const raw = new Database(file, { readonly: true });
    const where = whereSql(covered, { active: true, id: { gt: 'k' } });
    const sql = `EXPLAIN QUERY PLAN SELECT id, ${projectionSql('string', 'name')} FROM contract_things WHERE ${where.sql} ORDER BY id LIMIT 5`;
    const plan = (raw.prepare(sql).all(...where.params) as { detail: string }[]).map((row) => row.detail).join('; ');
    expect(plan).toContain('USING COVERING INDEX contract_things_index_active_id_name');
    raw.close();
  });

  it('fills the element table of an array index added to an existing file, and drops it when removed', async () => {
    const file = freshFile();
    const unindexed = defineCollection<Thing>({ ...THINGS, indexes: [] });
    const first = EmbeddedStorage.open(file, [unindexed]);
    await first.collection(unindexed).insert(thing('a', { tags: ['x', 'y', 'x'] }));
    await first.collection(unindexed).insert(thing('b', { tags: ['y'] }));
    await first.close();
    const second = EmbeddedStorage.open(file, [THINGS]);
    expect((await second.collection(THINGS).find({ tags: 'x' })).map((found) => found.id)).toEqual(['a']);
    expect(await second.collection(THINGS).count({ tags: 'y' })).toBe(2);
    await second.close();
    // Reopening with the same definition keeps the table as it is (no rebuild on every start).
    const marked = new Database(file);
    marked.exec(`INSERT INTO contract_things__tags (id, value) VALUES ('marker', 'm')`);
    marked.close();
    await EmbeddedStorage.open(file, [THINGS]).close();
    const reread = new Database(file, { readonly: true });
    expect(reread.prepare(`SELECT count(*) FROM contract_things__tags WHERE id = 'marker'`).pluck().get()).toBe(1);
    reread.close();
    await EmbeddedStorage.open(file, [unindexed]).close();
    const raw = new Database(file, { readonly: true });
    const leftovers = raw.prepare(`SELECT name FROM sqlite_master WHERE name GLOB 'contract_things__*'`).pluck().all();
    expect(leftovers).toEqual([]);
    raw.close();
  });

  it('refuses collection names holding "__", which element tables use', () => {
    const bad = defineCollection<{ id: string }>({ name: 'a__b', fields: {}, conflictMessage: 'x' });
    expect(() => EmbeddedStorage.open(':memory:', [bad])).toThrow('must not contain "__"');
  });

  it('drops indexes a changed definition no longer declares', async () => {
    const file = freshFile();
    await EmbeddedStorage.open(file, CONTRACT_COLLECTIONS).close();
    const relaxed = defineCollection<Thing>({ ...THINGS, unique: [], indexes: [] });
    const storage = EmbeddedStorage.open(file, [relaxed]);
    await storage.collection(relaxed).insert(thing('a'));
    await storage.collection(relaxed).insert(thing('b', { name: 'a' }));
    await storage.close();
    const raw = new Database(file, { readonly: true });
    const names = raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'contract_things' AND sql IS NOT NULL`).pluck().all();
    expect(names).toEqual(['contract_things_index_expiresAt']);
    raw.close();
  });

  it('refuses definitions with names that are not identifiers', () => {
    const bad = defineCollection<{ id: string; 'a.b': string }>({ name: 'bad', fields: { 'a.b': 'string' }, conflictMessage: 'x' });
    expect(() => EmbeddedStorage.open(':memory:', [bad])).toThrow('Invalid field name "a.b"');
  });

  it('maps use after close to StorageUnavailableError', async () => {
    const storage = EmbeddedStorage.open(':memory:', CONTRACT_COLLECTIONS);
    await storage.close();
    await expect(storage.ping()).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    await expect(storage.collection(THINGS).count({})).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  });
});
