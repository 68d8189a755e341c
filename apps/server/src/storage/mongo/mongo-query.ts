/**
 * Port filters, documents and updates translated to MongoDB's shapes. Values are normalised the way
 * the embedded store normalises them (dates cast, json fields reduced to plain JSON) so that both
 * adapters store and return the same thing.
 */
import type { Condition, Doc, FieldType, FindOptions, Scalar } from '../storage.port';
import { type AnyDef, type AnyFilter, fieldType, parseCondition, toDate } from '../collection-rules';

type Query = Record<string, unknown>;

export function mongoPath(field: string): string {
  return field === 'id' ? '_id' : field;
}

export function mongoFilter(def: AnyDef, filter: AnyFilter): Query {
  const query: Query = {};
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === 'or') {
      if (!Array.isArray(condition) || condition.length === 0) throw new Error('"or" needs a non-empty array of filters');
      query.$or = condition.map((branch: AnyFilter) => mongoFilter(def, branch));
      continue;
    }
    const type = fieldType(def, key);
    const parsed = parseCondition(key, type, condition as Condition);
    const value = (scalar: Scalar) => encodeScalar(type, key, scalar);
    switch (parsed.kind) {
      case 'eq':
        query[mongoPath(key)] = value(parsed.value);
        break;
      case 'ne':
        query[mongoPath(key)] = { $ne: value(parsed.value) };
        break;
      case 'in':
        query[mongoPath(key)] = { $in: parsed.values.map(value) };
        break;
      case 'range':
        query[mongoPath(key)] = Object.fromEntries(parsed.bounds.map(([operator, bound]) => [`$${operator}`, value(bound)]));
        break;
    }
  }
  return query;
}

export function mongoSort(def: AnyDef, options: FindOptions<any>): Record<string, 1 | -1> {
  const sort: Record<string, 1 | -1> = {};
  if (options.sort) {
    const { field, direction } = options.sort;
    const type = fieldType(def, field);
    if (type === 'string[]' || type === 'json') throw new Error(`Cannot sort "${def.name}" by ${type} field "${field}"`);
    if (direction !== 'asc' && direction !== 'desc') throw new Error(`Invalid sort direction "${String(direction)}"`);
    sort[mongoPath(field)] = direction === 'asc' ? 1 : -1;
  }
  // The same stable tie-break as the embedded store.
  if (options.sort?.field !== 'id') sort._id = 1;
  return sort;
}

export function mongoDoc(def: AnyDef, doc: Doc): Query {
  if (typeof doc.id !== 'string') throw new Error(`Documents of "${def.name}" need a string id`);
  const stored: Query = { _id: doc.id };
  for (const [field, value] of Object.entries(doc)) {
    if (field === 'id' || value === undefined) continue;
    stored[field] = encodeValue(fieldType(def, field), field, value);
  }
  return stored;
}

/** `$set` for the given values, `$unset` for undefined ones; null when there is nothing to change. */
export function mongoUpdate(def: AnyDef, set: Partial<Doc> & Record<string, unknown>): Query | null {
  const $set: Query = {};
  const $unset: Record<string, 1> = {};
  for (const [field, value] of Object.entries(set)) {
    if (field === 'id') throw new Error(`The id of "${def.name}" documents cannot be changed`);
    const type = fieldType(def, field);
    if (value === undefined) $unset[field] = 1;
    else $set[field] = encodeValue(type, field, value);
  }
  const update: Query = {};
  if (Object.keys($set).length > 0) update.$set = $set;
  if (Object.keys($unset).length > 0) update.$unset = $unset;
  return Object.keys(update).length > 0 ? update : null;
}

export function fromMongo<T extends Doc>(stored: Query): T {
  const { _id, ...fields } = stored;
  return { id: _id, ...fields } as T;
}

function encodeValue(type: FieldType | 'id', field: string, value: unknown): unknown {
  if (value === null) return null;
  if (type === 'date') return toDate(value, field);
  // The embedded store keeps json fields as JSON text: nested dates become strings there, so here too.
  if (type === 'json') return JSON.parse(JSON.stringify(value));
  return value;
}

function encodeScalar(type: FieldType | 'id', field: string, value: Scalar): unknown {
  return value !== null && type === 'date' ? toDate(value, field) : value;
}
