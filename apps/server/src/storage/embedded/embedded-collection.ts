import { ConflictError } from '@svc/common';
import type { Collection, Doc, Filter, FindOptions, Projected } from '../storage.port';
import { type AnyDef, fieldType } from '../collection-rules';
import { decodeProjected, decodeRow, encodeDoc, encodeField } from './doc-codec';
import { orderSql, projectionSql, type Sql, whereSql } from './sql-filter';
import { quote } from './sql-names';

/** What a collection needs from the store: statements run serialised against open transactions. */
export interface StatementRunner {
  all<R>(sql: string, params: unknown[]): Promise<R[]>;
  get<R>(sql: string, params: unknown[]): Promise<R | undefined>;
  run(sql: string, params: unknown[]): Promise<number>;
}

type Row = { id: string; doc: string };

const UNIQUE_VIOLATIONS = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export class EmbeddedCollection<T extends Doc> implements Collection<T> {
  private readonly table: string;

  constructor(
    private readonly def: AnyDef,
    private readonly db: StatementRunner,
  ) {
    this.table = quote(def.name);
  }

  async insert(doc: T): Promise<void> {
    const { id, json } = encodeDoc(this.def, doc);
    await this.write(`INSERT INTO ${this.table} (id, doc) VALUES (?, ?)`, [id, json]);
  }

  async findOne(filter: Filter<T>): Promise<T | null> {
    const where = whereSql(this.def, filter);
    const row = await this.db.get<Row>(`SELECT id, doc FROM ${this.table} WHERE ${where.sql} LIMIT 1`, where.params);
    return row ? decodeRow<T>(this.def, row) : null;
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T[]> {
    const rows = await this.select<Row>('id, doc', filter, options);
    return rows.map((row) => decodeRow<T>(this.def, row));
  }

  async findFields<K extends Exclude<keyof T, 'id'> & string>(filter: Filter<T>, fields: readonly K[], options: FindOptions<T> = {}): Promise<Projected<T, K>[]> {
    const types = fields.map((field) => fieldType(this.def, field));
    // Scalar fields are read with the very expressions the indexes hold, so a covering index answers.
    const columns = ['id', ...fields.map((field, i) => `${projectionSql(types[i], field)} AS c${i}`)];
    const rows = await this.select<Record<string, unknown>>(columns.join(', '), filter, options);
    return rows.map((row) => {
      const projected: Record<string, unknown> = { id: row.id };
      fields.forEach((field, i) => (projected[field] = decodeProjected(types[i], row[`c${i}`])));
      return projected as Projected<T, K>;
    });
  }

  async count(filter: Filter<T>): Promise<number> {
    const where = whereSql(this.def, filter);
    const row = await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${this.table} WHERE ${where.sql}`, where.params);
    return row?.n ?? 0;
  }

  async updateOne(filter: Filter<T>, set: Partial<T>): Promise<boolean> {
    const where = whereSql(this.def, filter);
    const update = this.updateSql(set);
    const sql = `UPDATE ${this.table} SET doc = ${update.sql} WHERE rowid = (SELECT rowid FROM ${this.table} WHERE ${where.sql} LIMIT 1)`;
    return (await this.write(sql, [...update.params, ...where.params])) > 0;
  }

  async updateMany(filter: Filter<T>, set: Partial<T>): Promise<number> {
    const where = whereSql(this.def, filter);
    const update = this.updateSql(set);
    return this.write(`UPDATE ${this.table} SET doc = ${update.sql} WHERE ${where.sql}`, [...update.params, ...where.params]);
  }

  async deleteOne(filter: Filter<T>): Promise<boolean> {
    const where = whereSql(this.def, filter);
    const sql = `DELETE FROM ${this.table} WHERE rowid = (SELECT rowid FROM ${this.table} WHERE ${where.sql} LIMIT 1)`;
    return (await this.db.run(sql, where.params)) > 0;
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    const where = whereSql(this.def, filter);
    return this.db.run(`DELETE FROM ${this.table} WHERE ${where.sql}`, where.params);
  }

  private async select<R>(columns: string, filter: Filter<T>, options: FindOptions<T>): Promise<R[]> {
    if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 0)) {
      throw new Error(`Invalid limit ${options.limit}`);
    }
    if (options.limit === 0) return [];
    const where = whereSql(this.def, filter);
    const order = orderSql(this.def, options);
    return this.db.all<R>(`SELECT ${columns} FROM ${this.table} WHERE ${where.sql}${order.sql}`, [...where.params, ...order.params]);
  }

  /** `json_set` for the given values (as JSON, so booleans stay booleans), `json_remove` for undefined. */
  private updateSql(set: Partial<T>): Sql {
    const assignments: string[] = [];
    const params: unknown[] = [];
    const removals: string[] = [];
    for (const [field, value] of Object.entries(set)) {
      if (field === 'id') throw new Error(`The id of "${this.def.name}" documents cannot be changed`);
      const type = fieldType(this.def, field);
      if (value === undefined) {
        removals.push(`'$.${field}'`);
      } else {
        assignments.push(`'$.${field}', json(?)`);
        params.push(JSON.stringify(encodeField(type, field, value)));
      }
    }
    let sql = 'doc';
    if (assignments.length > 0) sql = `json_set(${sql}, ${assignments.join(', ')})`;
    if (removals.length > 0) sql = `json_remove(${sql}, ${removals.join(', ')})`;
    return { sql, params };
  }

  private async write(sql: string, params: unknown[]): Promise<number> {
    try {
      return await this.db.run(sql, params);
    } catch (error) {
      if (UNIQUE_VIOLATIONS.has((error as { code?: string }).code ?? '')) throw new ConflictError(this.def.conflictMessage);
      throw error;
    }
  }
}
