/**
 * Tables and indexes of the embedded store, derived from the collection definitions. Indexes are
 * synchronised like Mongoose's syncIndexes: ones no longer defined (or defined differently) are
 * dropped, so a changed definition never leaves a stale unique constraint behind.
 */
import type Database from 'better-sqlite3';
import { type AnyDef, fieldType, isScalar, validateDef } from '../collection-rules';
import { fieldExpression } from './sql-filter';
import { syncElementIndexes } from './element-index';
import { quote } from './sql-names';

interface IndexSpec {
  name: string;
  sql: string;
}

export function createCollection(db: Database.Database, def: AnyDef): void {
  validateDef(def);
  const table = quote(def.name);
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
  const wanted = indexSpecs(def);
  const existing = db
    .prepare<[string], { name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
    .all(def.name);
  for (const index of existing) {
    if (!wanted.some((spec) => spec.name === index.name && spec.sql === index.sql)) db.exec(`DROP INDEX ${quote(index.name)}`);
  }
  for (const spec of wanted) {
    if (!existing.some((index) => index.name === spec.name && index.sql === spec.sql)) db.exec(spec.sql);
  }
  syncElementIndexes(db, def);
}

function indexSpecs(def: AnyDef): IndexSpec[] {
  const specs: IndexSpec[] = [];
  const add = (kind: string, unique: boolean, expressions: string[], fields: string[]) => {
    const name = `${def.name}_${kind}_${fields.join('_')}`;
    if (specs.some((spec) => spec.name === name)) return;
    specs.push({ name, sql: `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${quote(name)} ON ${quote(def.name)} (${expressions.join(', ')})` });
  };
  for (const fields of def.unique ?? []) {
    // MongoDB indexes a missing field as null and lets only one document hold it; SQLite treats
    // NULLs as distinct, so the unique index maps them to a value no JSON scalar can equal.
    add('unique', true, fields.map((field) => `coalesce(${fieldExpression(field)}, x'00')`), fields);
    // Lookups compare the bare expression, which the coalesced index cannot serve.
    add('index', false, fields.map(fieldExpression), fields);
  }
  for (const fields of def.indexes ?? []) {
    const scalar = fields.filter((field) => isScalar(fieldType(def, field)));
    if (scalar.length > 0) add('index', false, scalar.map(fieldExpression), scalar);
  }
  if (def.expiresAt !== undefined) add('index', false, [fieldExpression(def.expiresAt)], [def.expiresAt]);
  return specs;
}
