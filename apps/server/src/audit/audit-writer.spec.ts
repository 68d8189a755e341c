import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStorage } from '../storage/embedded/embedded-storage';
import { AUDIT, AuditRecord } from '../storage/records';
import { AuditRepository } from './audit.repository';
import { AuditWriter } from './audit-writer';

const scratch = mkdtempSync(join(tmpdir(), 'audit-writer-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function entry(details: string): AuditRecord {
  const timestamp = new Date();
  return { id: randomUUID(), timestamp, user: 'u@x.test', action: 'device.exec', deviceId: 'd1', orgId: null, details, expiresAt: new Date(timestamp.getTime() + 1e9) };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AuditWriter', () => {
  let storage: EmbeddedStorage;
  let writer: AuditWriter;
  const stored = async () => (await storage.collection(AUDIT).find({}, { sort: { field: 'details', direction: 'asc' } })).map((e) => e.details);

  beforeEach(() => {
    storage = EmbeddedStorage.open(join(scratch, `${randomUUID()}.sqlite`), [AUDIT]);
    writer = new AuditWriter(storage, new AuditRepository(storage));
  });
  afterEach(() => storage.close());

  it('answers at once and writes the entries recorded in one turn together, a turn later', async () => {
    const transactions = jest.spyOn(storage, 'transaction');
    await writer.write(entry('a'));
    await writer.write(entry('b'));
    expect(await stored()).toEqual([]);
    await turn();
    await turn();
    expect(await stored()).toEqual(['a', 'b']);
    expect(transactions).toHaveBeenCalledTimes(1);
  });

  it('flush() writes what is queued before a reader reads', async () => {
    await writer.write(entry('a'));
    await writer.flush();
    expect(await stored()).toEqual(['a']);
  });

  it('writes an entry recorded inside a transaction in it: a rollback takes it away', async () => {
    await expect(
      storage.transaction(async () => {
        await writer.write(entry('in'));
        expect(await stored()).toEqual(['in']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await writer.flush();
    expect(await stored()).toEqual([]);
  });

  it('keeps the entries when the store fails, and then writes through (a request fails instead of going unaudited)', async () => {
    const insert = jest.spyOn(storage.collection(AUDIT), 'insert').mockRejectedValue(new Error('disk full'));
    await writer.write(entry('a'));
    await expect(writer.flush()).rejects.toThrow('disk full');
    await expect(writer.write(entry('b'))).rejects.toThrow('disk full');
    insert.mockRestore();
    await writer.write(entry('c'));
    expect(await stored()).toEqual(['a', 'c']);
  });

  it('writes the queue on shutdown, and every entry after that at once', async () => {
    await writer.write(entry('a'));
    await writer.beforeApplicationShutdown();
    expect(await stored()).toEqual(['a']);
    await writer.write(entry('b'));
    expect(await stored()).toEqual(['a', 'b']);
  });
});
