import { InvalidInputError } from '@svc/common/errors';
import { ROUTES } from '@svc/common/operations';
import { CliSettings, isLoopback } from '../config/cli-settings';
import { RestClient } from './rest-client';

/** What the CLI signs in with: the issuer, the public client id, and the API audience. */
export interface OAuthSettings {
  issuer: URL;
  clientId: string;
  audience?: string;
}

interface AdvertisedAuth {
  oauth?: { issuer?: string; client_id?: string; audience?: string };
}

/**
 * SVC_AUTH_DOMAIN, SVC_AUTH_CLIENT_ID and SVC_AUTH_AUDIENCE override; whatever they leave unset
 * comes from the server's `GET /auth/config`, so a self-hosted user sets only the server URL.
 */
export async function resolveOAuthSettings(settings: CliSettings, rest: RestClient): Promise<OAuthSettings> {
  const { domain, clientId, audience } = settings.auth;
  let advertised: AdvertisedAuth['oauth'] = {};
  if (!domain || !clientId) advertised = (await rest.request<AdvertisedAuth>({ method: 'GET', path: ROUTES.auth_config.path })).oauth ?? {};
  const issuerText = domain ?? advertised.issuer;
  const client = clientId ?? advertised.client_id;
  if (!issuerText || !client) throw new InvalidInputError(`${settings.serverUrl.origin} advertises no identity provider; set SVC_AUTH_DOMAIN and SVC_AUTH_CLIENT_ID`);
  const issuer = new URL(/^https?:\/\//i.test(issuerText) ? issuerText : `https://${issuerText}`);
  if (issuer.protocol !== 'https:' && !isLoopback(issuer)) {
    throw new InvalidInputError(`The identity provider ${issuer.origin} is plain HTTP; tokens travel only over HTTPS (http:// only for localhost)`);
  }
  return { issuer, clientId: client, audience: audience ?? advertised.audience };
}

type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' } });

let library: Promise<OpenIdClient> | undefined;

/** openid-client is ESM-only; a real dynamic import loads it from this CommonJS build on every Node line. */
export function openIdClient(): Promise<OpenIdClient> {
  library ??= import('openid-client');
  return library;
}

/**
 * The provider's metadata through OpenID discovery. openid-client follows no redirects and
 * refuses plain HTTP; it is allowed here only for a loopback issuer (the development provider).
 */
export async function discoverProvider(oauth: OAuthSettings): Promise<InstanceType<OpenIdClient['Configuration']>> {
  const client = await openIdClient();
  const insecure = oauth.issuer.protocol === 'http:';
  try {
    return await client.discovery(oauth.issuer, oauth.clientId, undefined, client.None(), { execute: insecure ? [client.allowInsecureRequests] : [], timeout: 30 });
  } catch (error) {
    throw Object.assign(new Error(`Cannot use the identity provider ${oauth.issuer.href}: ${describeOAuthError(error)}`), { code: 'IDP_UNREACHABLE' });
  }
}

/** One line for an openid-client failure: the provider's `error_description`, else the message. */
export function describeOAuthError(error: unknown): string {
  const fields = error as { error?: string; error_description?: string; message?: string; cause?: { message?: string; code?: string } };
  if (fields.error) return fields.error_description ? `${fields.error}: ${fields.error_description}` : fields.error;
  const cause = fields.cause?.code ?? fields.cause?.message;
  return cause ? `${fields.message} (${cause})` : String(fields.message ?? error);
}
