import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describeStorageContract } from '../storage.contract';
import { CONTRACT_COLLECTIONS, type Thing, THINGS, thing } from '../contract/contract-fixtures';
import { defineCollection, type Filter } from '../storage.port';
import { EmbeddedStorage } from './embedded-storage';
import { whereSql } from './sql-filter';

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
    raw.close();
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
