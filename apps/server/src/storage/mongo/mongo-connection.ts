/**
 * The MongoDB side of StorageModule, in its own file so that only a server whose DB_URI names
 * MongoDB loads Mongoose and the driver (StorageModule requires this file lazily): on embedded
 * storage they cost start-up time and a 17.8 MB BSON buffer for nothing.
 */
import { MongooseModule } from '@nestjs/mongoose';
import type { DynamicModule } from '@nestjs/common';
import type { Connection } from 'mongoose';
import type { StorageConfig } from '../../config/server-config';
import type { CollectionDef } from '../storage.port';
import { MongoStorage } from './mongo-storage';
import { mongooseModelDefinitions } from './schema-from-def';

/** @nestjs/mongoose's connection, injectable where these modules are imported. */
export function mongoConnectionModules(config: Extract<StorageConfig, { kind: 'mongo' }>, defs: readonly CollectionDef<any>[]): DynamicModule[] {
  return [
    // Bounded start-up: a wrong DB_URI fails within about 40 s with the driver's reason, instead
    // of @nestjs/mongoose's default nine retries; compose starts the server after MongoDB is healthy.
    MongooseModule.forRoot(config.uri, {
      dbName: config.dbName,
      user: config.user,
      pass: config.password,
      serverSelectionTimeoutMS: 10_000,
      retryAttempts: 3,
      retryDelay: 2_000,
    }),
    MongooseModule.forFeature(mongooseModelDefinitions(defs)),
  ];
}

/** The storage port over that connection, its collections and indexes in place. */
export async function openMongoStorage(connection: Connection, defs: readonly CollectionDef<any>[]): Promise<MongoStorage> {
  const mongo = new MongoStorage(connection, defs);
  await mongo.init();
  return mongo;
}
