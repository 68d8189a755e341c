import { readFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule, AppOptions } from './app.module';
import type { ServerConfig } from './config/server-config';
import { JsonLogger } from './logging/json-logger';
import { requestIdMiddleware } from './logging/request-id.middleware';
import { strictValidationPipe } from './common/validation.pipe';
import { jsonBodyMiddleware } from './common/json-body.middleware';
import { ADMIN_KEY_HEADER } from './auth/admin-key';
import { installClientErrorHandler } from './common/client-error.handler';

/** Builds the HTTP application; main.ts and the end-to-end tests both start the server this way. */
export async function createServerApp(config: ServerConfig, options: AppOptions & { logger?: JsonLogger } = {}): Promise<NestExpressApplication> {
  const logger = options.logger ?? new JsonLogger(config.logLevel);
  const httpsOptions = config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), {
    logger,
    httpsOptions,
    bodyParser: false,
    abortOnError: false,
  });
  app.use(requestIdMiddleware(logger));
  app.use(jsonBodyMiddleware());
  app.useGlobalPipes(strictValidationPipe());
  app.disable('x-powered-by');
  installClientErrorHandler(app.getHttpServer());
  app.enableShutdownHooks();

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('svc server')
      .setDescription('Device registration, authorization, organizations and audit for fleets of edge devices.')
      .setVersion('0.1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      .addApiKey({ type: 'apiKey', in: 'header', name: ADMIN_KEY_HEADER }, 'admin-key')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
  return app;
}
