import { Global, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getConnectionToken } from '@nestjs/mongoose';
import { ConfigModule } from '../config/config.module';
import type { ServerConfig } from '../config/server-config';
import { SystemClock } from '../common/clock';
import { MONGO_CONNECTION_TOKEN, StorageModule } from './storage.module';
import { Storage } from './storage.port';
import { MongoStorage } from './mongo/mongo-storage';
import { EmbeddedStorage } from './embedded/embedded-storage';

/** Stands in for @nestjs/mongoose's (global) connection, so no mongod is needed: models that create nothing. */
const fakeModel = { createCollection: async () => undefined, syncIndexes: async () => undefined };
@Global()
@Module({ providers: [{ provide: getConnectionToken(), useValue: { models: {}, model: () => fakeModel } }], exports: [getConnectionToken()] })
class FakeMongooseConnection {}

/** Two feature modules that each import StorageModule. */
@Module({ imports: [StorageModule] })
class FeatureA {}
@Module({ imports: [StorageModule] })
class FeatureB {}

const configWith = (storage: ServerConfig['storage']) => ConfigModule.forRoot({ storage } as ServerConfig, new SystemClock());

describe('StorageModule (not global: each feature module imports it)', () => {
  it('gives every importer one MongoDB port, on the connection the composition root imports', async () => {
    const app = await Test.createTestingModule({ imports: [configWith({ kind: 'mongo', uri: 'mongodb://unused', dbName: 'svc' }), FakeMongooseConnection, FeatureA, FeatureB] }).compile();
    const storage = app.select(FeatureA).get(Storage);
    expect(storage).toBeInstanceOf(MongoStorage);
    expect(app.select(FeatureB).get(Storage)).toBe(storage);
  });

  it("names @nestjs/mongoose's connection token without loading that package", () => {
    expect(MONGO_CONNECTION_TOKEN).toBe(getConnectionToken());
  });

  it('gives every importer one embedded port when DB_URI is unset', async () => {
    const app = await Test.createTestingModule({ imports: [configWith({ kind: 'embedded', file: ':memory:' }), FeatureA, FeatureB] }).compile();
    const storage = app.select(FeatureA).get(Storage);
    expect(storage).toBeInstanceOf(EmbeddedStorage);
    expect(app.select(FeatureB).get(Storage)).toBe(storage);
    await app.close();
  });

  it('leaves a module that does not import it without storage', async () => {
    @Injectable()
    class WantsStorage {
      constructor(readonly storage: Storage) {}
    }
    @Module({ providers: [WantsStorage] })
    class DoesNotImportIt {}
    const app = Test.createTestingModule({ imports: [configWith({ kind: 'embedded', file: ':memory:' }), FeatureA, DoesNotImportIt] }).compile();
    await expect(app).rejects.toThrow(/resolve dependencies of the WantsStorage \(\?\)/);
  });
});
