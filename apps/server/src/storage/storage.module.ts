import { Inject, Module, OnApplicationShutdown, type DynamicModule } from '@nestjs/common';
import { getConnectionToken, MongooseModule } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { SERVER_CONFIG, type ServerConfig, type StorageConfig } from '../config/server-config';
import { Storage } from './storage.port';
import { ALL_COLLECTIONS } from './records';
import { EmbeddedStorage } from './embedded/embedded-storage';
import { MongoStorage } from './mongo/mongo-storage';
import { mongooseModelDefinitions } from './mongo/schema-from-def';
import { RetentionJob } from './retention.job';

/**
 * The storage port, for the feature modules that import this one (each provides its own
 * repositories over it): MongoDB when DB_URI is set, else embedded SQLite. Not global: a module
 * that stores nothing does not see storage.
 */
@Module({
  providers: [
    {
      provide: Storage,
      inject: [SERVER_CONFIG, { token: getConnectionToken(), optional: true }],
      useFactory: async ({ storage }: ServerConfig, connection?: Connection) => {
        if (storage.kind === 'embedded') return EmbeddedStorage.open(storage.file, ALL_COLLECTIONS);
        const mongo = new MongoStorage(connection!, ALL_COLLECTIONS);
        await mongo.init();
        return mongo;
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
    if (config.kind === 'embedded') return [];
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
      MongooseModule.forFeature(mongooseModelDefinitions(ALL_COLLECTIONS)),
    ];
  }
}
