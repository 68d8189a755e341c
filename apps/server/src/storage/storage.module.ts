import { DynamicModule, Global, Inject, Module, OnApplicationShutdown, Provider } from '@nestjs/common';
import { getConnectionToken, MongooseModule } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import type { StorageConfig } from '../config/server-config';
import { Storage } from './storage.port';
import { ALL_COLLECTIONS } from './records';
import { EmbeddedStorage } from './embedded/embedded-storage';
import { MongoStorage } from './mongo/mongo-storage';
import { mongooseModelDefinitions } from './mongo/schema-from-def';
import { RetentionJob } from './retention.job';

/**
 * Picks the adapter from the configuration: MongoDB when DB_URI is set, else embedded SQLite.
 * Exports only the storage port; each feature module provides its own repositories over it.
 */
@Global()
@Module({})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(Storage) private readonly storage: Storage) {}

  /** The SQLite file is ours to close; Mongoose closes its own connection. */
  async onApplicationShutdown(): Promise<void> {
    if (this.storage.kind === 'embedded') await this.storage.close();
  }

  static forRoot(config: StorageConfig): DynamicModule {
    if (config.kind === 'embedded') {
      const storage: Provider = {
        provide: Storage,
        useFactory: () => EmbeddedStorage.open(config.file, ALL_COLLECTIONS),
      };
      return { module: StorageModule, providers: [storage, RetentionJob], exports: [Storage] };
    }
    const storage: Provider = {
      provide: Storage,
      inject: [getConnectionToken()],
      useFactory: async (connection: Connection) => {
        const mongo = new MongoStorage(connection, ALL_COLLECTIONS);
        await mongo.init();
        return mongo;
      },
    };
    return {
      module: StorageModule,
      imports: [
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
        MongooseModule.forFeature(mongooseModelDefinitions(ALL_COLLECTIONS)),
      ],
      providers: [storage, RetentionJob],
      exports: [Storage],
    };
  }
}
