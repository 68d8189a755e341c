/**
 * SQLite's stand-in for a MongoDB multikey index. An expression index cannot hold the elements of
 * a JSON array, so a condition on a `string[]` field would parse every document of the table.
 * For each `string[]` field named in the definition's indexes, a side table holds one row per
 * (document id, element), kept in step by triggers inside the very statement that writes the
 * document (so transactions and rollbacks cover it), and conditions on the field read it instead.
 */
import type Database from 'better-sqlite3';
import { type AnyDef, fieldType } from '../collection-rules';
import { quote } from './sql-names';

/** The `string[]` fields that have an element table. */
export function elementIndexedFields(def: AnyDef): string[] {
  const fields = (def.indexes ?? []).flat().filter((field) => field !== 'id' && fieldType(def, field) === 'string[]');
  return [...new Set(fields)];
}

/** Rows `(id, value)`: the same `value` json_each yields, so conditions read identically. */
export function elementTable(def: AnyDef, field: string): string {
  return `${def.name}__${field}`;
}

/** Creates, or recreates and refills, the element tables the definition asks for; drops the others. */
export function syncElementIndexes(db: Database.Database, def: AnyDef): void {
  const wanted = new Map(elementIndexedFields(def).map((field) => [elementTable(def, field), statements(def, field)]));
  const existing = db
    .prepare<[string, string], { type: string; name: string; tbl_name: string; sql: string }>(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE (type IN ('table', 'index') AND tbl_name GLOB ?) OR (type = 'trigger' AND tbl_name = ?)`,
    )
    .all(`${def.name}__*`, def.name);
  const ownerOf = (object: { type: string; name: string; tbl_name: string }) => (object.type === 'trigger' ? object.name.replace(/_(insert|update|delete)$/, '') : object.tbl_name);
  const tables = new Set(existing.map(ownerOf));
  for (const table of tables) {
    const objects = existing.filter((object) => ownerOf(object) === table && object.sql !== null);
    const spec = wanted.get(table);
    const current = spec !== undefined && objects.length === spec.length && objects.every((object) => spec.some((sql) => sql === object.sql));
    if (current) {
      wanted.delete(table);
      continue;
    }
    for (const trigger of objects.filter((object) => object.type === 'trigger')) db.exec(`DROP TRIGGER IF EXISTS ${quote(trigger.name)}`);
    db.exec(`DROP TABLE IF EXISTS ${quote(table)}`);
  }
  for (const [table, spec] of wanted) {
    for (const sql of spec) db.exec(sql);
    const field = table.slice(def.name.length + 2);
    db.exec(`INSERT INTO ${quote(table)} (id, value) SELECT DISTINCT t.id, e.value FROM ${quote(def.name)} AS t, json_each(t.doc, '$.${field}') AS e`);
  }
}

function statements(def: AnyDef, field: string): string[] {
  const table = elementTable(def, field);
  const [side, main] = [quote(table), quote(def.name)];
  const fill = `INSERT INTO ${side} (id, value) SELECT DISTINCT NEW.id, value FROM json_each(NEW.doc, '$.${field}');`;
  return [
    // No declared type on `value`: elements keep their SQL type, exactly as json_each returns them.
    `CREATE TABLE ${side} (id TEXT NOT NULL, value)`,
    `CREATE INDEX ${quote(`${table}_value`)} ON ${side} (value, id)`,
    `CREATE INDEX ${quote(`${table}_id`)} ON ${side} (id)`,
    `CREATE TRIGGER ${quote(`${table}_insert`)} AFTER INSERT ON ${main} BEGIN ${fill} END`,
    // Only when the array changed: frequent writes of other fields (lastSeen) leave it alone.
    `CREATE TRIGGER ${quote(`${table}_update`)} AFTER UPDATE OF doc ON ${main} WHEN OLD.doc -> '$.${field}' IS NOT NEW.doc -> '$.${field}' ` +
      `BEGIN DELETE FROM ${side} WHERE id = OLD.id; ${fill} END`,
    `CREATE TRIGGER ${quote(`${table}_delete`)} AFTER DELETE ON ${main} BEGIN DELETE FROM ${side} WHERE id = OLD.id; END`,
  ];
}
