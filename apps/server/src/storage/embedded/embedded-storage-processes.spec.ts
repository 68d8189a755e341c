import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_COLLECTIONS, THINGS, thing } from '../contract/contract-fixtures';
import { EmbeddedStorage, SQLITE_BUSY_TIMEOUT_MS } from './embedded-storage';
import { launcherHook } from '../../../../../test/fixtures/runtime-process';

const scratch = mkdtempSync(join(tmpdir(), 'embedded-processes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Another process (another replica) holding the file's write lock: a transaction begun with BEGIN
 * IMMEDIATE, committed after `holdMs`, or held until killed. Resolves once it holds the lock.
 */
async function otherProcessLocks(file: string, holdMs?: number): Promise<{ kill(): void; exited: Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(join(__dirname, 'sqlite-driver.ts'))}).loadSqliteDriver();
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    ${holdMs === undefined ? 'setInterval(() => undefined, 1000);' : `setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`}
  `;
  const child = spawn(process.execPath, ['-r', launcherHook(), '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the locking process exited (${code}) before it held the lock`)));
  });
  return { kill: () => child.kill('SIGKILL'), exited };
}

describe('EmbeddedStorage: several processes on one file', () => {
  it('waits for the write lock another process holds briefly, then writes', async () => {
    const file = join(scratch, 'brief.sqlite');
    const storage = EmbeddedStorage.open(file, CONTRACT_COLLECTIONS);
    try {
      const other = await otherProcessLocks(file, 300);
      await storage.collection(THINGS).insert(thing('after-the-wait'));
      await other.exited;
      expect(await storage.collection(THINGS).findOne({ id: 'after-the-wait' })).toMatchObject({ id: 'after-the-wait' });
    } finally {
      await storage.close();
    }
  });

  it(`gives up after SQLITE_BUSY_TIMEOUT_MS (${SQLITE_BUSY_TIMEOUT_MS} ms) on a lock held longer: 503 STORAGE_UNAVAILABLE, not a longer frozen event loop`, async () => {
    const file = join(scratch, 'held.sqlite');
    const storage = EmbeddedStorage.open(file, CONTRACT_COLLECTIONS);
    const other = await otherProcessLocks(file);
    try {
      const started = Date.now();
      await expect(storage.collection(THINGS).insert(thing('never'))).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      const waited = Date.now() - started;
      // SQLite's busy handler sleeps in steps, so it may return a little before or after the timeout.
      expect(waited).toBeGreaterThanOrEqual(SQLITE_BUSY_TIMEOUT_MS - 200);
      expect(waited).toBeLessThan(SQLITE_BUSY_TIMEOUT_MS + 1_000);
    } finally {
      other.kill();
      await other.exited;
      await storage.close();
    }
  });
});
