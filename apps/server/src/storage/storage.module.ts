import { Inject, Module, OnApplicationShutdown, type DynamicModule } from '@nestjs/common';
import type { Connection } from 'mongoose';
import { SERVER_CONFIG, type ServerConfig, type StorageConfig } from '../config/server-config';
import { Storage } from './storage.port';
import { ALL_COLLECTIONS } from './records';
import { EmbeddedStorage } from './embedded/embedded-storage';
import { RetentionJob } from './retention.job';

/** @nestjs/mongoose's token for its default connection (`getConnectionToken()`), named here so that embedded storage never loads that package. */
export const MONGO_CONNECTION_TOKEN = 'DatabaseConnection';

/** Mongoose and the MongoDB driver load only when DB_URI names MongoDB: required here, at that moment. */
const mongo = (): typeof import('./mongo/mongo-connection') => require('./mongo/mongo-connection');

/**
 * The storage port, for the feature modules that import this one (each provides its own
 * repositories over it): MongoDB when DB_URI is set, else embedded SQLite. Not global: a module
 * that stores nothing does not see storage.
 */
@Module({
  providers: [
    {
      provide: Storage,
      inject: [SERVER_CONFIG, { token: MONGO_CONNECTION_TOKEN, optional: true }],
      useFactory: async ({ storage }: ServerConfig, connection?: Connection) => {
        if (storage.kind === 'embedded') return EmbeddedStorage.open(storage.file, ALL_COLLECTIONS);
        return mongo().openMongoStorage(connection!, ALL_COLLECTIONS);
      },
    },
    RetentionJob,
  ],
  exports: [Storage],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(Storage) private readonly storage: Storage) {}

  /** The SQLite file is ours to close; Mongoose closes its own connection. */
  async onApplicationShutdown(): Promise<void> {
    if (this.storage.kind === 'embedded') await this.storage.close();
  }

  /**
   * The MongoDB connection the port runs on (none for embedded SQLite), for the composition root
   * to import once: @nestjs/mongoose makes it injectable here.
   */
  static connection(config: StorageConfig): DynamicModule[] {
    return config.kind === 'embedded' ? [] : mongo().mongoConnectionModules(config, ALL_COLLECTIONS);
  }
}
