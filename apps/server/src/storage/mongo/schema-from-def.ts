/**
 * Mongoose schemas built from the collection definitions, so that records.ts stays the single
 * schema of both adapters. `_id` holds our string `id`.
 */
import { Schema, type IndexDefinition, type SchemaDefinition } from 'mongoose';
import type { CollectionDef, FieldType } from '../storage.port';
import { type AnyDef, validateDef } from '../collection-rules';

export interface MongooseModelDefinition {
  name: string;
  schema: Schema;
}

const PATHS: Record<FieldType, SchemaDefinition[string]> = {
  string: { type: String },
  number: { type: Number },
  boolean: { type: Boolean },
  date: { type: Date },
  // Mongoose would otherwise default a missing array to [], which the embedded store does not.
  'string[]': { type: [String], default: undefined },
  json: { type: Schema.Types.Mixed },
};

/** For `MongooseModule.forFeature(...)`; MongoStorage uses the models registered under these names. */
export function mongooseModelDefinitions(defs: readonly CollectionDef<any>[]): MongooseModelDefinition[] {
  return defs.map((def) => ({ name: def.name, schema: schemaFromDef(def) }));
}

export function schemaFromDef(def: AnyDef): Schema {
  validateDef(def);
  const definition: SchemaDefinition = { _id: { type: String, required: true } };
  for (const [field, type] of Object.entries(def.fields as Record<string, FieldType>)) definition[field] = PATHS[type];
  const schema = new Schema(definition, {
    collection: def.name,
    versionKey: false,
    // Keep empty json objects ({}), which Mongoose would drop by default.
    minimize: false,
    id: false,
    // MongoStorage.init() creates the collection and synchronises the indexes before first use.
    autoCreate: false,
    autoIndex: false,
  });
  const keys = new Set<string>();
  const index = (fields: string[], options: { unique?: boolean; expireAfterSeconds?: number } = {}) => {
    const key = JSON.stringify(fields);
    // MongoDB refuses two indexes on one key pattern with different options; the first one wins
    // (unique before plain, TTL before a plain index on the expiry field).
    // The _id index exists already.
    if (keys.has(key) || key === '["id"]') return;
    keys.add(key);
    schema.index(Object.fromEntries(fields.map((field) => [field === 'id' ? '_id' : field, 1])) as IndexDefinition, options);
  };
  for (const fields of def.unique ?? []) index(fields, { unique: true });
  if (def.expiresAt !== undefined) index([def.expiresAt], { expireAfterSeconds: 0 });
  for (const fields of def.indexes ?? []) index(fields);
  return schema;
}
