import type Database from 'better-sqlite3';
import { EmbeddedStorage } from '../../storage/embedded/embedded-storage';
import { DEVICES, DeviceRecord } from '../../storage/records';
import { DevicesRepository, prefixRange } from './devices.repository';
import { DeviceRecords } from './device-records';

describe('prefixRange', () => {
  it.each([
    ['ascii', 'edge-', { gte: 'edge-', lt: 'edge.' }],
    ['one character', 'a', { gte: 'a', lt: 'b' }],
    ['a character below the surrogates', 'x\ud7ff', { gte: 'x\ud7ff', lt: 'x\ue000' }],
    ['an astral character', 'x😀', { gte: 'x😀', lt: 'x😁' }],
    ['the last code point carries into the one before', 'ab\u{10ffff}', { gte: 'ab\u{10ffff}', lt: 'ac' }],
    ['only the last code point: no upper bound', '\u{10ffff}', { gte: '\u{10ffff}' }],
  ])('%s', (_label, prefix, range) => {
    expect(prefixRange(prefix)).toEqual(range);
  });

  it('bounds exactly the strings with the prefix, in code point order', () => {
    const { gte, lt } = prefixRange('ab') as { gte: string; lt: string };
    const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const inside = (s: string) => byCodePoint(s, gte) >= 0 && byCodePoint(s, lt) < 0;
    expect(['ab', 'abc', 'ab\u{10ffff}', 'ab😀'].every(inside)).toBe(true);
    expect(['aa', 'a', 'ac', 'b', 'Ab'].some(inside)).toBe(false);
  });
});

describe('DeviceRecords.referencedBy on the embedded store', () => {
  const OWNER = 'user:many@x.test';
  const OTHER = 'user:other@x.test';
  let storage: EmbeddedStorage;
  let records: DeviceRecords;
  /** The SQLite plan of every devices query the repository prepared, as EXPLAIN QUERY PLAN details. */
  const plans = (): string[][] => {
    const db = (storage as unknown as { db: Database.Database }).db;
    const prepared = [...(storage as unknown as { statements: Map<string, unknown> }).statements.keys()].filter((sql) => sql.includes('FROM "devices"'));
    const planOf = (sql: string) => db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...sql.split('?').slice(1).map(() => 1)) as { detail: string }[];
    return prepared.map((sql) => planOf(sql).map((row) => row.detail));
  };
  const ids = async (scopes: string[], ref: string) => (await records.referencedBy(scopes, ref)).map((d) => d.id).sort();

  beforeAll(async () => {
    storage = EmbeddedStorage.open(':memory:', [DEVICES]);
    const devices = new DevicesRepository(storage);
    records = new DeviceRecords(devices);
    const at = new Date();
    const insert = (id: string, name: string, ownerScope: string, allowedScopes: string[] = []) =>
      devices.insert({ id, name, ownerScope, allowedScopes, shares: [], info: {}, apiKeyHash: `h-${id}`, createdAt: at, approvedBy: 'x', lastSeen: null, historySince: at } as unknown as DeviceRecord);
    await storage.transaction(async () => {
      for (let i = 0; i < 200; i++) await insert(`d-${i}`, `name-${i}`, OWNER, i === 7 ? ['org:friends'] : []);
      // Another owner's devices shared with OWNER, named or registered after OWNER's own.
      await insert('o-1', 'd-3', OTHER, [OWNER]);
      await insert('o-2', 'name-4', OTHER, [OWNER]);
      await insert('name-5', 'o-3', OTHER, [OWNER]);
      await insert('o-4', 'twin', OTHER, [OWNER]);
      await insert('o-5', 'twin', OTHER, [OWNER]);
      await insert('o-6', 'mine-and-shared', OTHER, [OWNER]);
      await insert('d-900', 'mine-and-shared', OWNER);
      await insert('d-901', 'mine-twice', OWNER);
      await insert('d-902', 'mine-twice', 'org:crew');
    });
  });
  afterAll(() => storage.close());

  it('finds a device by id or by name among those the scopes reach, and no other', async () => {
    expect(await ids([OWNER], 'd-3')).toEqual(['d-3']);
    expect(await ids([OWNER], 'name-4')).toEqual(['d-4']);
    expect(await ids(['org:friends'], 'name-7')).toEqual(['d-7']);
    expect(await ids(['org:friends'], 'd-8')).toEqual([]);
    expect(await ids(['user:third@x.test'], 'd-3')).toEqual([]);
  });

  it("decides among the caller's own devices first: another's device named or registered after one of them never captures it", async () => {
    expect(await ids([OWNER], 'name-5')).toEqual(['d-5']);
    expect(await ids([OWNER], 'mine-and-shared')).toEqual(['d-900']);
    expect(await ids([OWNER, 'org:crew'], 'mine-twice')).toEqual(['d-901', 'd-902']);
    expect(await ids([OTHER], 'd-3')).toEqual(['o-1']);
  });

  it('then among the devices shared with the caller, an id before a name, alike names ambiguous', async () => {
    expect(await ids([OWNER], 'o-3')).toEqual(['name-5']);
    expect(await ids([OWNER], 'o-1')).toEqual(['o-1']);
    expect(await ids([OWNER], 'twin')).toEqual(['o-4', 'o-5']);
  });

  it("reads the rows through the id and name indexes, never through the owner's (all of an owner's devices)", async () => {
    await records.referencedBy([OWNER], 'twin');
    const all = plans();
    expect(all.length).toBeGreaterThan(0);
    for (const plan of all) {
      expect(plan.some((step) => /USING INDEX sqlite_autoindex_devices_1 \(id=\?\)|USING INDEX devices_index_ownerScope_id_name \(<expr>=\? AND id=\?\)|USING INDEX devices_index_name \(<expr>=\?\)/.test(step))).toBe(true);
      expect(plan.filter((step) => /devices_index_ownerScope_id_name \(<expr>=\?\)$/.test(step))).toEqual([]);
    }
  });
});
