/**
 * The MongoDB adapter over a Mongoose connection (a replica set: transactions need one). The
 * session of an open transaction travels in AsyncLocalStorage, so repositories pass nothing and
 * every collection call inside `transaction(work)` joins it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { StorageUnavailableError } from '@svc/common';
import type { ClientSession, Connection, Model } from 'mongoose';
import { type Collection, type CollectionDef, type Doc, Storage } from '../storage.port';
import type { AnyDef } from '../collection-rules';
import { MongoCollection, type MongoContext } from './mongo-collection';
import { schemaFromDef } from './schema-from-def';

// Driver errors meaning the server cannot be reached, as opposed to a refused operation.
const UNAVAILABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
]);

export class MongoStorage extends Storage {
  readonly kind = 'mongo' as const;
  private readonly sessions = new AsyncLocalStorage<ClientSession>();
  private readonly models = new Map<string, Model<any>>();
  private readonly collections = new Map<string, MongoCollection<Doc>>();

  /** Uses the models `mongooseModelDefinitions(defs)` registered on the connection, or registers them. */
  constructor(
    private readonly connection: Connection,
    defs: readonly CollectionDef<any>[],
  ) {
    super();
    const context: MongoContext = {
      session: () => this.sessions.getStore(),
      guard: (operation) => (this.sessions.getStore() ? operation() : this.guard(operation)),
    };
    for (const def of defs as readonly AnyDef[]) {
      const model = connection.models[def.name] ?? connection.model(def.name, schemaFromDef(def));
      this.models.set(def.name, model);
      this.collections.set(def.name, new MongoCollection(def, model, context));
    }
  }

  /**
   * Creates the collections (a transaction cannot create one under concurrent use) and brings the
   * indexes in line with the definitions, dropping ones no longer defined. Call before first use.
   */
  async init(): Promise<void> {
    for (const model of this.models.values()) {
      await this.guard(() => model.createCollection());
      await this.guard(() => model.syncIndexes());
    }
  }

  collection<T extends Doc>(def: CollectionDef<T>): Collection<T> {
    const collection = this.collections.get(def.name);
    if (!collection) throw new Error(`Collection "${def.name}" was not registered when the storage was opened`);
    return collection as unknown as Collection<T>;
  }

  async transaction<R>(work: () => Promise<R>): Promise<R> {
    if (this.inTransaction()) return work();
    return this.guard(async () => {
      const session = await this.connection.startSession();
      try {
        let result!: R;
        // withTransaction retries `work` on transient errors (write conflicts, elections).
        await session.withTransaction(async () => {
          result = await this.sessions.run(session, work);
        });
        return result;
      } finally {
        await session.endSession();
      }
    });
  }

  inTransaction(): boolean {
    return this.sessions.getStore() !== undefined;
  }

  async ping(): Promise<void> {
    const db = this.connection.db;
    if (!db) throw new StorageUnavailableError('Storage is not connected');
    await this.guard(() => db.admin().ping());
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private async guard<R>(operation: () => Promise<R>): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      const message = String((error as { message?: unknown }).message ?? '');
      if ((typeof name === 'string' && UNAVAILABLE.has(name)) || message.includes('buffering timed out')) {
        throw new StorageUnavailableError();
      }
      throw error;
    }
  }
}
