import { readFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule, AppOptions } from './app.module';
import type { ServerConfig } from './config/server-config';
import { JsonLogger } from './logging/json-logger';
import { requestIdMiddleware } from './logging/request-id.middleware';
import { strictValidationPipe } from './common/validation.pipe';
import { jsonBodyMiddleware } from './common/json-body.middleware';
import { ADMIN_KEY_HEADER } from './auth/admin-key';
import { installClientErrorHandler } from './common/client-error.handler';
import { guardRestConnections } from './common/rest-connections';
import { closeIdleConnectionsOnStop } from './common/idle-connections-on-stop';
import { dashboardMiddleware } from './web/dashboard.middleware';
import { apiDocsSecurityHeaders } from './web/security-headers';

/**
 * REST_PORT against slow clients (slowloris): a request's headers must arrive within 15 s, checked
 * every second (with Node's default check every 30 s a trickle of headers lived up to 45 s; Node
 * reads connectionsCheckingInterval when the server starts listening). The whole request has no
 * deadline here: uploads stream files of any size at the client's speed (a JSON body has its own,
 * REST_BODY_TIMEOUT_MS: json-body.middleware.ts). An idle keep-alive connection closes after 65 s:
 * longer than the clients' and proxies' own idle limits (Node's fetch 4 s, browsers and load
 * balancers 60 s), so a client never reuses a connection the server is closing at that moment
 * (with Node's 5 s default, a request sent after ~4-5 s of idleness could meet ECONNRESET).
 */
const REST_TIMEOUTS = { headersTimeout: 15_000, requestTimeout: 0, keepAliveTimeout: 65_000, connectionsCheckingInterval: 1_000 } as const;

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
  app.use(dashboardMiddleware(config.webDir, config.oauth.issuer));
  app.use(jsonBodyMiddleware(config.rest.bodyTimeoutMs));
  app.useGlobalPipes(strictValidationPipe());
  app.disable('x-powered-by');
  Object.assign(app.getHttpServer(), REST_TIMEOUTS);
  installClientErrorHandler(app.getHttpServer());
  guardRestConnections(app.getHttpServer(), config.rest, (message) => logger.warn(message, 'RestConnections'));
  closeIdleConnectionsOnStop(app.getHttpServer());
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
  // Swagger UI shares the dashboard's origin: the same protection against framing, sniffing and foreign scripts.
  const docsHeaders = apiDocsSecurityHeaders();
  app.use('/docs', (_req: Request, res: Response, next: NextFunction) => {
    res.set(docsHeaders);
    next();
  });
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
  return app;
}
