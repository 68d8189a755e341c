/**
 * Translates port filters into parameterised SQL with MongoDB's semantics: values only ever travel
 * as parameters, and field names are accepted only when the collection definition declares them.
 */
import type { Condition, FieldType, FindOptions, Scalar } from '../storage.port';
import { type AnyDef, type AnyFilter, fieldType, isScalar, parseCondition, type RangeOperator } from '../collection-rules';
import { encodeParam } from './doc-codec';
import { elementIndexedFields, elementTable } from './element-index';
import { quote } from './sql-names';

export interface Sql {
  sql: string;
  params: unknown[];
}

const SQL_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const FALSE: Sql = { sql: '0', params: [] };

/**
 * The expression an index is built on and a filter compares: both must be spelled identically for
 * SQLite to use expression indexes.
 */
export function fieldExpression(field: string): string {
  return field === 'id' ? 'id' : `json_extract(doc, '$.${field}')`;
}

/**
 * The column a projection reads: scalars with `json_extract` (the expression indexes hold), arrays
 * and json as JSON text, since json_extract would hand a JSON string back unquoted.
 */
export function projectionSql(type: FieldType | 'id', field: string): string {
  return isScalar(type) ? fieldExpression(field) : `doc -> '$.${field}'`;
}

export function whereSql(def: AnyDef, filter: AnyFilter): Sql {
  const parts: Sql[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    parts.push(key === 'or' ? orSql(def, condition) : conditionSql(def, key, condition as Condition));
  }
  return parts.length === 0 ? { sql: '1', params: [] } : and(parts);
}

export function orderSql(def: AnyDef, options: FindOptions<any> = {}): Sql {
  const parts: string[] = [];
  if (options.sort) {
    const { field, direction } = options.sort;
    const type = fieldType(def, field);
    if (type === 'string[]' || type === 'json') throw new Error(`Cannot sort "${def.name}" by ${type} field "${field}"`);
    if (direction !== 'asc' && direction !== 'desc') throw new Error(`Invalid sort direction "${String(direction)}"`);
    parts.push(`${fieldExpression(field)} ${direction.toUpperCase()}`);
  }
  // A stable tie-break, so paging over equal sort keys returns the same order on both adapters.
  if (options.sort?.field !== 'id') parts.push('id ASC');
  const limit = options.limit === undefined ? '' : ' LIMIT ?';
  return { sql: ` ORDER BY ${parts.join(', ')}${limit}`, params: options.limit === undefined ? [] : [options.limit] };
}

function orSql(def: AnyDef, branches: unknown): Sql {
  if (!Array.isArray(branches) || branches.length === 0) throw new Error('"or" needs a non-empty array of filters');
  return or(branches.map((branch) => whereSql(def, branch as AnyFilter)));
}

function conditionSql(def: AnyDef, field: string, condition: Condition): Sql {
  const type = fieldType(def, field);
  const parsed = parseCondition(field, type, condition);
  const test = type === 'string[]' ? arrayTests(def, field) : type === 'json' ? jsonTests(field) : scalarTests(fieldExpression(field));
  const param = (value: Scalar) => encodeParam(type, field, value);
  switch (parsed.kind) {
    case 'eq':
      return parsed.value === null ? test.isNull : test.compare('=', param(parsed.value));
    case 'ne':
      return parsed.value === null ? not(test.isNull) : test.notEqual(param(parsed.value));
    case 'in': {
      const present = parsed.values.filter((value) => value !== null);
      const parts = present.length > 0 ? [test.anyOf(present.map(param))] : [];
      if (present.length < parsed.values.length) parts.push(test.isNull);
      return parts.length === 0 ? FALSE : or(parts);
    }
    case 'range':
      return and(parsed.bounds.map(([operator, bound]) => rangeSql(test, operator, bound, param)));
  }
}

/** MongoDB's null sorts below everything, so only the inclusive bounds of a null range match. */
function rangeSql(test: Tests, operator: RangeOperator, bound: Scalar, param: (value: Scalar) => unknown): Sql {
  if (bound === null) return operator === 'gte' || operator === 'lte' ? test.isNull : FALSE;
  return test.compare(SQL_OPERATORS[operator], param(bound));
}

interface Tests {
  isNull: Sql;
  compare(operator: string, param: unknown): Sql;
  /** True for a missing field too, as MongoDB's `$ne` is. */
  notEqual(param: unknown): Sql;
  anyOf(params: unknown[]): Sql;
}

function scalarTests(expression: string): Tests {
  return {
    isNull: { sql: `${expression} IS NULL`, params: [] },
    compare: (operator, param) => ({ sql: `${expression} ${operator} ?`, params: [param] }),
    notEqual: (param) => ({ sql: `${expression} IS NOT ?`, params: [param] }),
    anyOf: (params) => ({ sql: `${expression} IN (${params.map(() => '?').join(', ')})`, params }),
  };
}

/**
 * On arrays a condition holds when any element satisfies it; null also matches a missing field.
 * Indexed arrays are read from their element table, others element by element from the document.
 */
function arrayTests(def: AnyDef, field: string): Tests {
  const indexed = elementIndexedFields(def).includes(field);
  const anyElement = (where: string, params: unknown[]): Sql => ({
    sql: indexed
      ? `id IN (SELECT id FROM ${quote(elementTable(def, field))} WHERE ${where})`
      : `EXISTS (SELECT 1 FROM json_each(doc, '$.${field}') WHERE ${where})`,
    params,
  });
  return {
    isNull: or([{ sql: `${fieldExpression(field)} IS NULL`, params: [] }, anyElement('value IS NULL', [])]),
    compare: (operator, param) => anyElement(`value ${operator} ?`, [param]),
    notEqual: (param) => not(anyElement('value = ?', [param])),
    anyOf: (params) => anyElement(`value IN (${params.map(() => '?').join(', ')})`, params),
  };
}

/** Only null tests reach json fields; like MongoDB, a top-level array holding null counts as null. */
function jsonTests(field: string): Tests {
  const elementIsNull = `json_type(doc, '$.${field}') = 'array' AND EXISTS (SELECT 1 FROM json_each(doc, '$.${field}') WHERE type = 'null')`;
  return { ...scalarTests(fieldExpression(field)), isNull: or([{ sql: `${fieldExpression(field)} IS NULL`, params: [] }, { sql: elementIsNull, params: [] }]) };
}

function not(part: Sql): Sql {
  return { sql: `NOT (${part.sql})`, params: part.params };
}

function or(parts: Sql[]): Sql {
  return { sql: parts.map((part) => `(${part.sql})`).join(' OR '), params: parts.flatMap((part) => part.params) };
}

function and(parts: Sql[]): Sql {
  return { sql: parts.map((part) => `(${part.sql})`).join(' AND '), params: parts.flatMap((part) => part.params) };
}
