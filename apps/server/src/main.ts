import { ConfigError } from '@svc/common';
import { loadServerConfig, ServerConfig } from './config/server-config';
import { JsonLogger } from './logging/json-logger';
import { createServerApp } from './app.factory';
import { assertDevProviderAllowed, startDevIdentityProvider } from './dev-idp/dev-identity-provider';
import { dashboardAddresses } from './web/dashboard-addresses';

async function main(): Promise<void> {
  let config: ServerConfig;
  try {
    config = loadServerConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`svc server: ${err.message}\n`);
    process.exit(2);
  }
  const logger = new JsonLogger(config.logLevel);

  if (config.devIdentityProvider) {
    assertDevProviderAllowed(config.staging);
    const idp = await startDevIdentityProvider({
      port: config.devIdentityProvider.port,
      host: config.listenHost === '0.0.0.0' ? '127.0.0.1' : config.listenHost,
      issuer: config.oauth.issuer,
      audience: config.oauth.audience,
      clientId: config.oauth.clientId,
      webClientId: config.oauth.webClientId,
      webRedirectUris: dashboardAddresses(config),
      keysFile: config.devIdentityProvider.keysFile,
    });
    logger.warn(`development identity provider at ${idp.issuer} (staging only; sign-in needs no password)`, 'DevIdentityProvider');
  }

  const app = await createServerApp(config, { logger });
  await app.listen(config.restPort, config.listenHost);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.restPort;
  logger.event('info', 'server listening', {
    url: `${config.tls ? 'https' : 'http'}://${config.listenHost}:${port}`,
    storage: config.storage.kind,
    issuer: config.oauth.issuer,
    staging: config.staging,
  });
  if (config.loopbackForDefaultKey) {
    logger.warn(`listening on ${config.listenHost} only: ADMIN_KEY is the well-known default; set ADMIN_KEY, or LISTEN_HOST=0.0.0.0 to serve other hosts anyway`, 'Bootstrap');
  }
  if (!config.tls) logger.warn('no TLS certificates found; serving plain HTTP (staging only)', 'Bootstrap');
}

main().catch((err: unknown) => {
  process.stderr.write(`svc server: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
