/**
 * The storage port. Features never see a database: they use repositories built on this small
 * document-collection API, which two adapters implement (embedded SQLite and MongoDB/Mongoose).
 * The contract suite (storage.contract.ts) holds both to the same behaviour.
 */
export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'string[]' | 'json';

export interface CollectionDef<T extends Doc = Doc> {
  name: string;
  /** Every stored field except `id` (always the primary key). */
  fields: { [K in Exclude<keyof T, 'id'>]-?: FieldType };
  /** Compound unique indexes; a violation raises ConflictError. */
  unique?: (keyof T & string)[][];
  /** Secondary indexes for the queries the repositories run. */
  indexes?: (keyof T & string)[][];
  /** Date field after which a document expires (TTL index on MongoDB, purge job on both). */
  expiresAt?: keyof T & string;
  /** The message of the ConflictError raised on a uniqueness violation. */
  conflictMessage: string;
}

export interface Doc {
  id: string;
}

export type Scalar = string | number | boolean | Date | null;

/**
 * A condition on one field. On `string[]` fields, a scalar or `in` condition matches when any
 * element matches (MongoDB's semantics). `null` matches a missing or null field.
 */
export type Condition =
  | Scalar
  | { in: Scalar[] }
  | { ne: Scalar }
  | { gt?: Scalar; gte?: Scalar; lt?: Scalar; lte?: Scalar };

export type Filter<T> = { [K in keyof T]?: Condition } & { or?: Filter<T>[] };

export interface FindOptions<T> {
  sort?: { field: keyof T & string; direction: 'asc' | 'desc' };
  limit?: number;
}

/** A document reduced to its id and the named fields; a missing field comes back as null. */
export type Projected<T extends Doc, K extends keyof T> = Pick<T, 'id'> & { [F in K]: T[F] | null };

export interface Collection<T extends Doc> {
  /** Throws ConflictError (the definition's message) when a unique index or the id is taken. */
  insert(doc: T): Promise<void>;
  findOne(filter: Filter<T>): Promise<T | null>;
  find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]>;
  /**
   * `find` returning only the id and the named fields: listings read and decode less, and an index
   * holding those fields can answer alone. Missing and null both come back as null, the
   * distinction the filter language does not make either.
   */
  findFields<K extends Exclude<keyof T, 'id'> & string>(filter: Filter<T>, fields: readonly K[], options?: FindOptions<T>): Promise<Projected<T, K>[]>;
  count(filter: Filter<T>): Promise<number>;
  /**
   * Sets the given fields (an `undefined` value removes the field) on the first match. Matching
   * and writing are one atomic step, so a filter on a field every write changes (a revision)
   * makes this a compare-and-set: of concurrent writers that read the same revision, one wins.
   */
  updateOne(filter: Filter<T>, set: Partial<T>): Promise<boolean>;
  updateMany(filter: Filter<T>, set: Partial<T>): Promise<number>;
  deleteOne(filter: Filter<T>): Promise<boolean>;
  deleteMany(filter: Filter<T>): Promise<number>;
}

export abstract class Storage {
  abstract readonly kind: 'embedded' | 'mongo';
  abstract collection<T extends Doc>(def: CollectionDef<T>): Collection<T>;
  /**
   * Runs `work` atomically: every collection call made inside it (found through async context,
   * so repositories need no extra parameter) commits together or not at all. Nested calls join
   * the outer transaction.
   */
  abstract transaction<R>(work: () => Promise<R>): Promise<R>;
  /** Whether the caller runs inside `transaction(work)`, so that a write it makes joins it. */
  abstract inTransaction(): boolean;
  /** Resolves when the store answers; used by /health. */
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}

export function defineCollection<T extends Doc>(def: CollectionDef<T>): CollectionDef<T> {
  return def;
}
