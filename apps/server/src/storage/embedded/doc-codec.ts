/**
 * How documents look inside SQLite: one JSON text per row, without `id` (the primary key column).
 * Dates are ISO-8601 strings so that SQL compares and sorts them like MongoDB compares dates, and
 * the collection definition says which fields to revive as `Date` when reading.
 */
import type { Doc, FieldType, Scalar } from '../storage.port';
import { type AnyDef, fieldType, isScalar, toDate } from '../collection-rules';

/** The JSON value stored for a field. */
export function encodeField(type: FieldType | 'id', field: string, value: unknown): unknown {
  if (value === null) return null;
  return type === 'date' ? toDate(value, field).toISOString() : value;
}

/** The SQL parameter a filter compares against: what json_extract returns for the stored value. */
export function encodeParam(type: FieldType | 'id', field: string, value: Scalar): unknown {
  if (value === null) return null;
  if (type === 'date') return toDate(value, field).toISOString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

export function encodeDoc(def: AnyDef, doc: Doc): { id: string; json: string } {
  if (typeof doc.id !== 'string') throw new Error(`Documents of "${def.name}" need a string id`);
  const stored: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(doc)) {
    if (field === 'id' || value === undefined) continue;
    stored[field] = encodeField(fieldType(def, field), field, value);
  }
  return { id: doc.id, json: JSON.stringify(stored) };
}

export function decodeRow<T extends Doc>(def: AnyDef, row: { id: string; doc: string }): T {
  const stored = JSON.parse(row.doc) as Record<string, unknown>;
  for (const [field, type] of Object.entries(def.fields as Record<string, FieldType>)) {
    if (type === 'date' && typeof stored[field] === 'string') stored[field] = new Date(stored[field] as string);
  }
  return { id: row.id, ...stored } as T;
}

/** A projected column back to the field's value; SQL NULL (missing) and JSON null are both null. */
export function decodeProjected(type: FieldType | 'id', value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (!isScalar(type)) return JSON.parse(value as string);
  if (type === 'boolean') return value === 1;
  if (type === 'date') return new Date(value as string);
  return value;
}
