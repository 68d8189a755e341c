import type { ServerConfig } from '../config/server-config';

/**
 * The origins the dashboard is served at, as the development identity provider registers them
 * for the web client's redirects: localhost, 127.0.0.1 and PUBLIC_ADDRESS on REST_PORT.
 */
export function dashboardAddresses(config: Pick<ServerConfig, 'tls' | 'restPort' | 'publicAddress'>): string[] {
  const scheme = config.tls ? 'https' : 'http';
  const hosts = [...new Set(['localhost', '127.0.0.1', config.publicAddress])];
  return hosts.map((host) => `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.restPort}/`);
}
