import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { FileOidcStore } from './file-adapter';
import { handleInteraction, isInteractionRequest } from './interaction-routes';
import type { OidcProviderModule } from './oidc-provider.types';
import { errorPage } from './pages';
import { providerConfiguration, resourceIndicatorFor } from './provider-configuration';
import { loadOrCreateSigningKeys } from './signing-keys';
import { DEFAULT_OAUTH_CLIENT_ID, DEFAULT_OAUTH_WEB_CLIENT_ID } from '../config/server-variables';

export interface DevIdentityProviderOptions {
  /** 0 picks a free port; the issuer then names the port actually used. */
  port: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Default `http://localhost:<port>/`. */
  issuer?: string;
  /** Default: the issuer without its trailing slash. */
  audience?: string;
  /** The CLI's public client; default DEFAULT_OAUTH_CLIENT_ID (`svc-cli`). */
  clientId?: string;
  /** The web dashboard's client id; default DEFAULT_OAUTH_WEB_CLIENT_ID (`svc-web`). */
  webClientId?: string;
  /** Where the dashboard is served (`http://localhost:8085/`): its redirect URIs. None: no web client. */
  webRedirectUris?: string[];
  /** Private signing keys; created on first start, reused afterwards. */
  keysFile: string;
  /** Grants, refresh tokens and sessions, kept across restarts; default `grants.json` beside the keys. */
  stateFile?: string;
  /** Lifetime of access tokens; default 3600. */
  accessTokenTtlSeconds?: number;
}

export interface DevIdentityProvider {
  issuer: string;
  audience: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Refuses the development identity provider outside staging: it signs in anyone who types an
 * e-mail address, so in production it would hand out every account.
 */
export function assertDevProviderAllowed(staging: boolean): void {
  if (!staging) {
    throw new Error(
      'The development identity provider signs in any e-mail address without a password and cannot run in production ' +
        '(STAGING=0). Set OAUTH_ISSUER and OAUTH_AUDIENCE to your identity provider.',
    );
  }
}

/**
 * Starts a real OpenID provider (oidc-provider) with the device authorization grant, one public
 * client `svc-cli` (or `clientId`), the dashboard's client `svc-web` when given its redirect URIs, JWT access tokens for `audience`, and a password-less e-mail sign-in page.
 */
export async function startDevIdentityProvider(opts: DevIdentityProviderOptions): Promise<DevIdentityProvider> {
  const keys = loadOrCreateSigningKeys(opts.keysFile);
  const server = createServer();
  await listen(server, opts.port, opts.host ?? '127.0.0.1');
  const port = (server.address() as AddressInfo).port;
  const issuer = opts.issuer ?? `http://localhost:${port}/`;
  const audience = opts.audience ?? issuer.replace(/\/$/, '');
  const resource = resourceIndicatorFor(audience);

  try {
    // ESM-only package, loaded through Node's require(esm) here so that merely importing this
    // file (for its types or the guard above) never touches it; Jest cannot load it.
    const oidc = require('oidc-provider') as OidcProviderModule;
    const provider = new oidc.Provider(
      issuer,
      providerConfiguration(oidc, { audience, clientId: opts.clientId ?? DEFAULT_OAUTH_CLIENT_ID, webClient: { clientId: opts.webClientId ?? DEFAULT_OAUTH_WEB_CLIENT_ID, redirectUris: opts.webRedirectUris ?? [] }, resource, accessTokenTtlSeconds: opts.accessTokenTtlSeconds ?? 3600, keys, store: new FileOidcStore(opts.stateFile ?? join(dirname(opts.keysFile), 'grants.json')) }),
    );
    const callback = provider.callback();
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!isInteractionRequest(req)) return callback(req, res);
      handleInteraction(provider, resource, req, res).catch((error: unknown) => {
        console.error(`dev identity provider: sign-in page failed: ${(error as Error).message}`);
        if (res.headersSent) return res.destroy();
        res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' }).end(errorPage('Internal error'));
      });
    });
  } catch (error) {
    await closeServer(server);
    throw error;
  }

  return { issuer, audience, port, close: () => closeServer(server) };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections from browsers and fetch would otherwise hold close() open.
    server.closeAllConnections();
  });
}
