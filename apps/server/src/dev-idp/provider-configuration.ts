import { randomBytes } from 'node:crypto';
import type { OidcProviderModule, ProviderContext } from './oidc-provider.types';
import { errorPage, signedOutPage, signOutPage, successPage, userCodeConfirmPage, userCodeInputPage } from './pages';
import type { SigningKeySet } from './signing-keys';
import type { FileOidcStore } from './file-adapter';

export const CLI_SCOPES = 'openid email profile offline_access';
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const DAY = 24 * 60 * 60;

export interface ProviderSettings {
  audience: string;
  /** The public client the CLI signs in as. */
  clientId: string;
  /** The web dashboard's public client and the addresses it is served at (its redirect URIs); no web client when empty. */
  webClient: { clientId: string; redirectUris: string[] };
  /** The resource indicator that stands for the API; tokens for it are JWTs with `aud = audience`. */
  resource: string;
  accessTokenTtlSeconds: number;
  keys: SigningKeySet;
  /** Where grants and refresh tokens live, so they survive a restart. */
  store: FileOidcStore;
}

/**
 * oidc-provider requires resource indicators to be absolute URIs while an audience may be any
 * string (`svc-api`); an audience that is not a URI gets a URN standing in for it.
 */
export function resourceIndicatorFor(audience: string): string {
  return URL.canParse(audience) ? audience : `urn:svc:audience:${encodeURIComponent(audience)}`;
}

/** The account id is the e-mail address: this provider knows nothing else about its users. */
function findAccount(_ctx: unknown, sub: string) {
  return {
    accountId: sub,
    claims: async () => ({ sub, email: sub, email_verified: true, name: sub.split('@')[0] }),
  };
}

/** The dashboard signs in with the authorization code and PKCE from its own origin, and refreshes with rotation. */
function webClients({ clientId, redirectUris }: ProviderSettings['webClient']): Record<string, unknown>[] {
  if (redirectUris.length === 0) return [];
  return [
    {
      client_id: clientId,
      client_name: 'svc web dashboard',
      application_type: 'web',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: redirectUris,
      post_logout_redirect_uris: redirectUris,
      scope: CLI_SCOPES,
    },
  ];
}

export function providerConfiguration(oidc: OidcProviderModule, settings: ProviderSettings): Record<string, unknown> {
  const { audience, resource, accessTokenTtlSeconds } = settings;
  return {
    adapter: (model: string) => settings.store.adapter(model),
    jwks: settings.keys,
    clients: [
      {
        client_id: settings.clientId,
        client_name: 'svc command line',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: [DEVICE_CODE_GRANT, 'refresh_token', 'authorization_code'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
        scope: CLI_SCOPES,
      },
      ...webClients(settings.webClient),
    ],
    scopes: CLI_SCOPES.split(' '),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount,
    // Puts the e-mail into JWT access tokens, so APIs need not call userinfo.
    extraTokenClaims: async (_ctx: unknown, token: { accountId?: string }) => (token.accountId ? { email: token.accountId } : undefined),
    // The CLI gets a refresh token whenever it may use one, not only when it asked for offline_access.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // Refresh tokens of a device login must not die with the browser session that approved it.
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: async (ctx: ProviderContext, form: string, _out: unknown, err?: { name?: string; userCode?: string }) => {
          ctx.body = userCodeInputPage(form, err);
        },
        userCodeConfirmSource: async (ctx: ProviderContext, form: string, client: { clientId: string; clientName?: string }, _info: unknown, userCode: string) => {
          ctx.body = userCodeConfirmPage(form, client.clientName ?? client.clientId, userCode);
        },
        successSource: async (ctx: ProviderContext) => {
          ctx.body = successPage();
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        // Token requests from the CLI carry no `resource`; they still get the API's JWT.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new oidc.errors.InvalidTarget(`unknown resource; this provider serves only ${resource}`);
          return { scope: CLI_SCOPES, audience, accessTokenFormat: 'jwt', accessTokenTTL: accessTokenTtlSeconds, jwt: { sign: { alg: 'RS256' } } };
        },
      },
      revocation: { enabled: true },
      // The dashboard's sign-out ends the provider's session too, on pages that load nothing from elsewhere.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: ProviderContext, form: string) => {
          ctx.body = signOutPage(form);
        },
        postLogoutSuccessSource: async (ctx: ProviderContext) => {
          ctx.body = signedOutPage();
        },
      },
      userinfo: { enabled: true },
    },
    clientBasedCORS: () => true,
    renderError: async (ctx: ProviderContext, out: { error: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = errorPage(out.error, out.error_description);
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: {
      AccessToken: accessTokenTtlSeconds,
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 3600,
      Grant: 30 * DAY,
      RefreshToken: 30 * DAY,
      Session: 14 * DAY,
    },
  };
}
