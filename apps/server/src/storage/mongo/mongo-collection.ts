import { ConflictError } from '@svc/common';
import type { ClientSession, Model } from 'mongoose';
import type { Collection, Doc, Filter, FindOptions, Projected } from '../storage.port';
import { type AnyDef, fieldType } from '../collection-rules';
import { fromMongo, mongoDoc, mongoFilter, mongoSort, mongoUpdate } from './mongo-query';

const DUPLICATE_KEY = 11000;

type Stored = Record<string, unknown>;

/** What a collection needs from the store: the current transaction's session and error mapping. */
export interface MongoContext {
  session(): ClientSession | undefined;
  /** Runs one operation, mapping "cannot answer" failures unless a transaction will retry them. */
  guard<R>(operation: () => Promise<R>): Promise<R>;
}

export class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(
    private readonly def: AnyDef,
    private readonly model: Model<any>,
    private readonly context: MongoContext,
  ) {}

  async insert(doc: T): Promise<void> {
    const stored = mongoDoc(this.def, doc);
    await this.write(() => this.model.create([stored], { session: this.context.session() }));
  }

  async findOne(filter: Filter<T>): Promise<T | null> {
    const query = mongoFilter(this.def, filter);
    const found = await this.context.guard(() => this.model.findOne(query, null, { session: this.context.session() }).lean<Stored>().exec());
    return found ? fromMongo<T>(found) : null;
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T[]> {
    const found = await this.select(filter, null, options);
    return found.map((stored) => fromMongo<T>(stored));
  }

  async findFields<K extends Exclude<keyof T, 'id'> & string>(filter: Filter<T>, fields: readonly K[], options: FindOptions<T> = {}): Promise<Projected<T, K>[]> {
    for (const field of fields) fieldType(this.def, field);
    const found = await this.select(filter, Object.fromEntries(fields.map((field) => [field, 1])), options);
    return found.map((stored) => {
      const projected: Record<string, unknown> = { id: stored._id };
      for (const field of fields) projected[field] = stored[field] ?? null;
      return projected as Projected<T, K>;
    });
  }

  async count(filter: Filter<T>): Promise<number> {
    const query = mongoFilter(this.def, filter);
    return this.context.guard(() => this.model.countDocuments(query, { session: this.context.session() }).exec());
  }

  async updateOne(filter: Filter<T>, set: Partial<T>): Promise<boolean> {
    const query = mongoFilter(this.def, filter);
    const update = mongoUpdate(this.def, set);
    const session = this.context.session();
    if (!update) return (await this.context.guard(() => this.model.countDocuments(query, { session, limit: 1 }).exec())) > 0;
    const result = await this.write(() => this.model.updateOne(query, update, { session }).exec());
    return result.matchedCount > 0;
  }

  async updateMany(filter: Filter<T>, set: Partial<T>): Promise<number> {
    const query = mongoFilter(this.def, filter);
    const update = mongoUpdate(this.def, set);
    const session = this.context.session();
    if (!update) return this.context.guard(() => this.model.countDocuments(query, { session }).exec());
    const result = await this.write(() => this.model.updateMany(query, update, { session }).exec());
    return result.matchedCount;
  }

  async deleteOne(filter: Filter<T>): Promise<boolean> {
    const query = mongoFilter(this.def, filter);
    const result = await this.context.guard(() => this.model.deleteOne(query, { session: this.context.session() }).exec());
    return result.deletedCount > 0;
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    const query = mongoFilter(this.def, filter);
    const result = await this.context.guard(() => this.model.deleteMany(query, { session: this.context.session() }).exec());
    return result.deletedCount;
  }

  private async select(filter: Filter<T>, projection: Record<string, 1> | null, options: FindOptions<T>): Promise<Stored[]> {
    if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 0)) {
      throw new Error(`Invalid limit ${options.limit}`);
    }
    // MongoDB reads a limit of 0 as "no limit".
    if (options.limit === 0) return [];
    const query = mongoFilter(this.def, filter);
    const sort = mongoSort(this.def, options);
    // An empty projection would mean "every field": ask for _id alone instead.
    const fields = projection && Object.keys(projection).length === 0 ? { _id: 1 } : projection;
    return this.context.guard(() => this.model.find(query, fields, { session: this.context.session(), sort, limit: options.limit }).lean<Stored[]>().exec());
  }

  private async write<R>(operation: () => Promise<R>): Promise<R> {
    try {
      return await this.context.guard(operation);
    } catch (error) {
      if ((error as { code?: unknown }).code === DUPLICATE_KEY) throw new ConflictError(this.def.conflictMessage);
      throw error;
    }
  }
}
