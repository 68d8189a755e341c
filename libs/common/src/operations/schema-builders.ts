/**
 * Builders for the results' JSON Schemas (result-schemas.ts and the catalog entries' `result`),
 * typed `as const` so that json-schema-to-ts infers each result's TypeScript type (results.ts).
 * Objects are closed (`additionalProperties: false`): a field an answer carries is a field written.
 */
import type { JSONSchema } from 'json-schema-to-ts';

export type JsonSchema = Record<string, unknown>;

export const string = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const boolean = { type: 'boolean' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const oneOf = <const V extends readonly string[]>(...values: V) => ({ type: 'string', enum: values }) as const;
/** OpenAPI 3.0's way of saying "or null", which the server's OpenAPI document uses. */
export const nullable = <const S extends object>(schema: S) => ({ ...schema, nullable: true }) as const;
export const array = <const S extends JSONSchema>(items: S) => ({ type: 'array', items }) as const;

/** A closed object: every property required except the `optional` ones. */
export function object<const P extends Record<string, JSONSchema>, const O extends readonly (keyof P & string)[] = []>(properties: P, optional?: O) {
  const open = (optional ?? []) as readonly string[];
  const required = Object.keys(properties).filter((key) => !open.includes(key)) as Exclude<keyof P & string, O[number]>[];
  return { type: 'object', properties, required, additionalProperties: false } as const;
}

/** `{status: <value>}`: what a simple mutating tool answers. */
export const status = <const S extends string>(value: S) => object({ status: oneOf(value) });

/**
 * A [Batch] answer: the single result, or `{results}` with, per device, the result and its `device`
 * (merged into the one closed object: closed objects do not compose with allOf) or an error.
 */
export function batched<const S extends { properties: object; required: readonly string[] }>(single: S) {
  const failed = object({ device: string, error: string, code: string });
  const item = { ...single, properties: { device: string, ...single.properties }, required: ['device', ...single.required] } as const;
  return { oneOf: [single, object({ results: array({ oneOf: [item, failed] }) })] } as const;
}
