import type Database from 'better-sqlite3';
import { EmbeddedStorage } from '../../storage/embedded/embedded-storage';
import { DEVICES, DeviceRecord } from '../../storage/records';
import { DevicesRepository, prefixRange } from './devices.repository';

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

describe('DevicesRepository.findByIdOrName on the embedded store', () => {
  const OWNER = 'user:many@x.test';
  let storage: EmbeddedStorage;
  let devices: DevicesRepository;
  /** The SQLite plan of every devices query the repository prepared, as EXPLAIN QUERY PLAN details. */
  const plans = (): string[][] => {
    const db = (storage as unknown as { db: Database.Database }).db;
    const prepared = [...(storage as unknown as { statements: Map<string, unknown> }).statements.keys()].filter((sql) => sql.includes('FROM "devices"'));
    const planOf = (sql: string) => db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...sql.split('?').slice(1).map(() => 1)) as { detail: string }[];
    return prepared.map((sql) => planOf(sql).map((row) => row.detail));
  };

  beforeAll(async () => {
    storage = EmbeddedStorage.open(':memory:', [DEVICES]);
    devices = new DevicesRepository(storage);
    const at = new Date();
    await storage.transaction(async () => {
      for (let i = 0; i < 200; i++) {
        const id = `d-${i}`;
        await devices.insert({ id, name: `name-${i}`, ownerScope: OWNER, allowedScopes: i === 7 ? ['org:friends'] : [], shares: [], info: {}, apiKeyHash: `h${i}`, createdAt: at, approvedBy: 'x', lastSeen: null, historySince: at } as unknown as DeviceRecord);
      }
    });
  });
  afterAll(() => storage.close());

  it('finds a device by id or by name among those the scope reaches, and no other', async () => {
    expect((await devices.findByIdOrName({ scopes: [OWNER] }, 'd-3')).map((d) => d.id)).toEqual(['d-3']);
    expect((await devices.findByIdOrName({ scopes: [OWNER] }, 'name-4')).map((d) => d.id)).toEqual(['d-4']);
    expect((await devices.findByIdOrName({ scopes: ['org:friends'] }, 'name-7')).map((d) => d.id)).toEqual(['d-7']);
    expect(await devices.findByIdOrName({ scopes: ['org:friends'] }, 'd-8')).toEqual([]);
    expect(await devices.findByIdOrName({ scopes: ['user:other@x.test'] }, 'd-3')).toEqual([]);
  });

  it("reads the rows through the id and name indexes, never through the owner's (all of an owner's devices)", async () => {
    await devices.findByIdOrName({ scopes: [OWNER] }, 'd-3');
    const all = plans();
    expect(all.length).toBeGreaterThan(0);
    for (const plan of all) {
      expect(plan.some((step) => /USING INDEX sqlite_autoindex_devices_1 \(id=\?\)|USING INDEX devices_index_ownerScope_id_name \(<expr>=\? AND id=\?\)/.test(step))).toBe(true);
      expect(plan.some((step) => /USING INDEX devices_index_name \(<expr>=\?\)/.test(step))).toBe(true);
      expect(plan.filter((step) => /devices_index_ownerScope_id_name \(<expr>=\?\)$/.test(step))).toEqual([]);
    }
  });
});
