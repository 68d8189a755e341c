import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { OAuth2TokenRecord, UnauthenticatedError } from '@svc/common';
import { describeOAuthError, discoverProvider, openIdClient, OAuthSettings } from '../sdk/identity-provider';

/** Scopes the CLI asks for: the user's identity and e-mail, and a refresh token. */
export const LOGIN_SCOPES = 'openid email profile offline_access';

export interface DeviceLoginPrompt {
  verification_uri: string;
  verification_uri_complete?: string;
  user_code: string;
  expires_in: number;
}

export interface DeviceLoginOptions {
  /** Shows the user where to go and which code to enter. */
  prompt: (prompt: DeviceLoginPrompt) => void;
  /** Try to open the complete URL in a browser (only when one exists). */
  openBrowser: boolean;
  signal?: AbortSignal;
  now?: () => number;
}

/**
 * RFC 8628 device authorization grant, with PKCE (S256) when the provider announces it: ask for
 * a code, show it, poll the token endpoint at the interval the provider asks for (openid-client
 * adds 5 s on every `slow_down`), and answer the token record to store. Failures are
 * UnauthenticatedError with "Failed to auth" in the message.
 */
export async function deviceLogin(oauth: OAuthSettings, options: DeviceLoginOptions): Promise<OAuth2TokenRecord> {
  const config = await discoverProvider(oauth);
  const client = await openIdClient();
  if (!config.serverMetadata().device_authorization_endpoint) {
    throw new UnauthenticatedError(`Failed to auth: ${oauth.issuer.href} does not offer the device authorization grant (RFC 8628)`);
  }
  const pkce = config.serverMetadata().supportsPKCE();
  const verifier = client.randomPKCECodeVerifier();
  const parameters: Record<string, string> = { scope: LOGIN_SCOPES };
  if (oauth.audience) parameters.audience = oauth.audience;
  if (pkce) Object.assign(parameters, { code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  try {
    const authorization = await client.initiateDeviceAuthorization(config, parameters);
    options.prompt({
      verification_uri: authorization.verification_uri,
      verification_uri_complete: authorization.verification_uri_complete,
      user_code: authorization.user_code,
      expires_in: authorization.expires_in,
    });
    if (options.openBrowser) openInBrowser(authorization.verification_uri_complete ?? authorization.verification_uri);
    const tokens = await client.pollDeviceAuthorizationGrant(config, authorization, pkce ? { code_verifier: verifier } : undefined, { signal: options.signal });
    if (!tokens.refresh_token) process.emitWarning('the identity provider issued no refresh token: you will have to log in again when the access token expires');
    const now = options.now?.() ?? Math.floor(Date.now() / 1000);
    return { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_at: now + (tokens.expires_in ?? 3600) };
  } catch (error) {
    throw new UnauthenticatedError(`Failed to auth: ${describeOAuthError(error)}`);
  }
}

/**
 * Opens `url` in the user's browser when there is one: $BROWSER, `open` on macOS, `start` on
 * Windows, `xdg-open` on a Linux desktop. Over SSH or on a headless box nothing is started; the
 * printed URL is enough.
 */
function openInBrowser(url: string): void {
  const command = browserCommand();
  if (!command) return;
  try {
    const child = spawn(command[0], [...command.slice(1), url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is on the screen; a browser that fails to start changes nothing.
  }
}

function browserCommand(): string[] | undefined {
  if (process.env.BROWSER) return [process.env.BROWSER];
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '""'];
  const desktop = process.env.DISPLAY || process.env.WAYLAND_DISPLAY;
  if (desktop && !process.env.SSH_CONNECTION && onPath('xdg-open')) return ['xdg-open'];
  return undefined;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
