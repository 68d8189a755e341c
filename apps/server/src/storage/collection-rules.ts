/**
 * Rules both adapters apply before touching their database (embedded/ and mongo/ both import them),
 * so that a definition, a document or a filter is accepted or rejected identically by both.
 */
import type { CollectionDef, Condition, FieldType, Scalar } from './storage.port';

export type AnyDef = CollectionDef<any>;

/** A filter as the translators walk it: field names are checked against the definition there. */
export type AnyFilter = { readonly [field: string]: unknown };

export type RangeOperator = 'gt' | 'gte' | 'lt' | 'lte';

export type ParsedCondition =
  | { kind: 'eq'; value: Scalar }
  | { kind: 'in'; values: Scalar[] }
  | { kind: 'ne'; value: Scalar }
  | { kind: 'range'; bounds: [RangeOperator, Scalar][] };

const RANGE_OPERATORS: readonly string[] = ['gt', 'gte', 'lt', 'lte'];

// Field names end up inside JSON paths, index names and Mongo paths: identifier syntax only.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function assertIdentifier(kind: string, name: string): void {
  if (!IDENTIFIER.test(name)) throw new Error(`Invalid ${kind} name "${name}"`);
}

/** The definition's type of a field, `id` for the primary key; unknown names are rejected. */
export function fieldType(def: AnyDef, field: string): FieldType | 'id' {
  if (field === 'id') return 'id';
  if (!Object.hasOwn(def.fields, field)) throw new Error(`Unknown field "${field}" in collection "${def.name}"`);
  return (def.fields as Record<string, FieldType>)[field];
}

export function isScalar(type: FieldType | 'id'): boolean {
  return type !== 'string[]' && type !== 'json';
}

/** Rejects definitions the two adapters could not honour identically. */
export function validateDef(def: AnyDef): void {
  assertIdentifier('collection', def.name);
  // The embedded store names its element tables `<collection>__<field>`.
  if (def.name.includes('__')) throw new Error(`Collection name "${def.name}" must not contain "__"`);
  for (const field of Object.keys(def.fields)) {
    assertIdentifier('field', field);
    if (field === '_id') throw new Error(`Field name "_id" is reserved in collection "${def.name}"`);
  }
  for (const fields of [...(def.unique ?? []), ...(def.indexes ?? [])]) {
    if (fields.length === 0) throw new Error(`Empty index in collection "${def.name}"`);
    // MongoDB refuses compound indexes over two array fields.
    if (fields.filter((field) => fieldType(def, field) === 'string[]').length > 1) {
      throw new Error(`Index of "${def.name}" over more than one string[] field`);
    }
  }
  for (const fields of def.unique ?? []) {
    const multi = fields.find((field) => !isScalar(fieldType(def, field)));
    // MongoDB enforces uniqueness per array element; an SQLite expression index cannot.
    if (multi) throw new Error(`Unique index of "${def.name}" on non-scalar field "${multi}"`);
  }
  if (def.expiresAt !== undefined && fieldType(def, def.expiresAt) !== 'date') {
    throw new Error(`expiresAt of "${def.name}" must name a date field`);
  }
}

/** Accepts what Mongoose would cast to a Date, so both adapters agree on what a date field holds. */
export function toDate(value: unknown, field: string): Date {
  const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw new Error(`Field "${field}" expects a date`);
  return date;
}

/**
 * Parses a condition on a field of the given type. Shapes MongoDB would read differently from what
 * was meant (an array or an empty object as a value, mixed operators) are rejected, and json
 * fields can only be tested for null.
 */
export function parseCondition(field: string, type: FieldType | 'id', condition: Condition): ParsedCondition {
  const parsed = parse(field, condition);
  if (type === 'json' && !((parsed.kind === 'eq' || parsed.kind === 'ne') && parsed.value === null)) {
    throw new Error(`json field "${field}" can only be tested for null`);
  }
  return parsed;
}

function parse(field: string, condition: Condition): ParsedCondition {
  if (condition === null || typeof condition !== 'object' || condition instanceof Date) return { kind: 'eq', value: condition };
  const entries = Object.entries(condition).filter(([, value]) => value !== undefined) as [string, unknown][];
  const keys = entries.map(([key]) => key);
  if (keys.length === 1 && keys[0] === 'in') {
    const values = entries[0][1];
    if (!Array.isArray(values)) throw new Error(`"in" on "${field}" needs an array`);
    return { kind: 'in', values: values as Scalar[] };
  }
  if (keys.length === 1 && keys[0] === 'ne') return { kind: 'ne', value: entries[0][1] as Scalar };
  if (keys.length > 0 && keys.every((key) => RANGE_OPERATORS.includes(key))) {
    return { kind: 'range', bounds: entries as [RangeOperator, Scalar][] };
  }
  throw new Error(`Invalid condition on "${field}": ${JSON.stringify(condition)}`);
}
