/**
 * The embedded adapter: one SQLite file (better-sqlite3), one table of JSON documents per
 * collection. better-sqlite3 is synchronous and the connection is shared, so a transaction that
 * awaits between statements holds a mutex; calls made inside it (found through AsyncLocalStorage)
 * run directly, every other call waits its turn instead of slipping into the open transaction.
 * Outside transactions a statement (synchronous) runs at once unless one is open or queued.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { loadSqliteDriver } from './sqlite-driver';
import { StorageUnavailableError } from '@svc/common';
import { type Collection, type CollectionDef, type Doc, Storage } from '../storage.port';
import { AsyncMutex } from './async-mutex';
import type { AnyDef } from '../collection-rules';
import { EmbeddedCollection, type StatementRunner } from './embedded-collection';
import { createCollection } from './sql-schema';

interface TransactionContext {
  /** Cleared when the transaction ends, so stray calls made from its context queue up again. */
  active: boolean;
}

// Conditions in which the store cannot answer, as opposed to a bad statement.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB)/;
const STATEMENT_CACHE_SIZE = 500;
/**
 * How long a statement waits for the write lock another process holds (replicas sharing the file)
 * before failing with SQLITE_BUSY (503 STORAGE_UNAVAILABLE). better-sqlite3 waits synchronously,
 * freezing this process's event loop meanwhile, so the wait stays short of what would make the
 * other replicas count this one gone: its heartbeat every 2 s against a 6 s TTL, and its peer
 * connections, pinged every 2 s and dropped after 5 s unanswered. Honest contention costs
 * milliseconds (a write transaction here lasts a few); a process that holds the lock longer is
 * stopped or stuck, and waiting longer for it would only spread its stall.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 2_000;

export class EmbeddedStorage extends Storage {
  readonly kind = 'embedded' as const;
  private readonly mutex = new AsyncMutex();
  private readonly context = new AsyncLocalStorage<TransactionContext>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly collections = new Map<string, EmbeddedCollection<Doc>>();

  private constructor(
    private readonly db: Database.Database,
    defs: readonly AnyDef[],
  ) {
    super();
    const runner: StatementRunner = {
      all: (sql, params) => this.serialised(() => this.statement(sql).all(...params) as never[]),
      get: (sql, params) => this.serialised(() => this.statement(sql).get(...params) as never),
      run: (sql, params) => this.serialised(() => this.statement(sql).run(...params).changes),
    };
    for (const def of defs) this.collections.set(def.name, new EmbeddedCollection(def, runner));
  }

  /**
   * Opens (creating if needed) the database file, `:memory:` for a private in-memory database, and
   * creates each collection's table and indexes.
   */
  static open(file: string, defs: readonly CollectionDef<any>[]): EmbeddedStorage {
    const inMemory = file === ':memory:' || file === '';
    if (!inMemory) {
      mkdirSync(dirname(resolve(file)), { recursive: true, mode: 0o700 });
      // The file holds key hashes and sealed keys: create it private before SQLite does (the WAL
      // and shared-memory files inherit its permissions).
      if (!existsSync(file)) closeSync(openSync(file, 'wx', 0o600));
    }
    const Sqlite = loadSqliteDriver();
    const db = new Sqlite(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    try {
      db.pragma('journal_mode = WAL');
      db.transaction(() => defs.forEach((def) => createCollection(db, def)))();
    } catch (error) {
      db.close();
      throw error;
    }
    return new EmbeddedStorage(db, defs);
  }

  collection<T extends Doc>(def: CollectionDef<T>): Collection<T> {
    const collection = this.collections.get(def.name);
    if (!collection) throw new Error(`Collection "${def.name}" was not registered when the storage was opened`);
    return collection as unknown as Collection<T>;
  }

  async transaction<R>(work: () => Promise<R>): Promise<R> {
    if (this.inTransaction()) return work();
    return this.mutex.runExclusive(async () => {
      const context: TransactionContext = { active: true };
      this.guard(() => this.db.exec('BEGIN IMMEDIATE'));
      try {
        const result = await this.context.run(context, work);
        context.active = false;
        this.guard(() => this.db.exec('COMMIT'));
        return result;
      } catch (error) {
        context.active = false;
        if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  inTransaction(): boolean {
    return this.context.getStore()?.active === true;
  }

  async ping(): Promise<void> {
    // No mutex: SELECT 1 reads no table, and /health should answer while a transaction is open.
    this.guard(() => this.db.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    await this.mutex.runExclusive(() => {
      this.statements.clear();
      if (this.db.open) this.db.close();
    });
  }

  /**
   * Runs a step now inside this store's open transaction, otherwise once no transaction is open.
   * A step is one synchronous statement, so with the mutex idle (no transaction open or queued) it
   * runs at once: nothing can interleave with it, and the queue is not paid for.
   */
  private async serialised<R>(step: () => R): Promise<R> {
    if (this.inTransaction() || this.mutex.idle) return this.guard(step);
    return this.mutex.runExclusive(() => this.guard(step));
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      // Filters of arbitrary shape produce arbitrary SQL; a full cache simply starts over.
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Maps "cannot answer" failures to StorageUnavailableError (503); others pass unchanged. */
  private guard<R>(step: () => R): R {
    try {
      return step();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && UNAVAILABLE.test(code)) throw new StorageUnavailableError();
      if (!this.db.open) throw new StorageUnavailableError('Storage is closed');
      throw error;
    }
  }
}
