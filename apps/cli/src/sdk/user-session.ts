import { OAuth2TokenRecord, readCredentials, updateCredentials } from '@svc/common/credentials-file';
import { UnauthenticatedError } from '@svc/common/errors';
import { CliSettings } from '../config/cli-settings';
import { RestClient } from './rest-client';
import { describeOAuthError, discoverProvider, openIdClient, resolveOAuthSettings } from './identity-provider';

/** A token this close to `expires_at` is refreshed before use, so it cannot expire in flight. */
const EXPIRY_MARGIN_SECONDS = 30;
const REFRESH_RETRIES = 3;
const FIRST_BACKOFF_MS = 500;

export const RELOGIN_HINT = 'run "svc login" again';

/** The user's tokens in `credentials.OAuth2Token`: read, refreshed when expired, rotated ones saved. */
export class UserSession {
  private refreshing: Promise<OAuth2TokenRecord> | undefined;

  constructor(
    private readonly settings: CliSettings,
    private readonly rest: RestClient,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** `Bearer <access token>`, refreshed first when it has expired. */
  async authorization(): Promise<string> {
    let token = this.stored();
    if (!token) throw new UnauthenticatedError('Not logged in: run "svc login" first');
    if (token.expires_at - EXPIRY_MARGIN_SECONDS <= this.now()) {
      this.refreshing ??= this.refresh(token).finally(() => (this.refreshing = undefined));
      token = await this.refreshing;
    }
    return `Bearer ${token.access_token}`;
  }

  stored(): OAuth2TokenRecord | undefined {
    return readCredentials(this.settings.credentialsPath).credentials?.OAuth2Token;
  }

  save(token: OAuth2TokenRecord): void {
    updateCredentials(this.settings.credentialsPath, (doc) => {
      doc.credentials = { ...doc.credentials, OAuth2Token: token };
    });
  }

  private async refresh(token: OAuth2TokenRecord): Promise<OAuth2TokenRecord> {
    if (!token.refresh_token) throw new UnauthenticatedError(`Your session has expired and holds no refresh token: ${RELOGIN_HINT}`);
    const config = await discoverProvider(await resolveOAuthSettings(this.settings, this.rest));
    const client = await openIdClient();
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await client.refreshTokenGrant(config, token.refresh_token);
        const next: OAuth2TokenRecord = {
          access_token: answer.access_token,
          // A provider that does not rotate answers without one: the old refresh token stays valid.
          refresh_token: answer.refresh_token ?? token.refresh_token,
          expires_at: this.now() + (answer.expires_in ?? 3600),
        };
        this.save(next);
        return next;
      } catch (error) {
        if (isGrantRefusal(error)) {
          // Another svc process may have rotated the refresh token a moment ago: use what it saved.
          const current = this.stored();
          if (current && current.refresh_token !== token.refresh_token && current.expires_at - EXPIRY_MARGIN_SECONDS > this.now()) return current;
          throw new UnauthenticatedError(`Your session is no longer valid (${describeOAuthError(error)}): ${RELOGIN_HINT}`);
        }
        if (attempt >= REFRESH_RETRIES) throw new UnauthenticatedError(`Cannot refresh your session: ${describeOAuthError(error)}`);
        await new Promise((resolve) => setTimeout(resolve, FIRST_BACKOFF_MS * 2 ** attempt));
      }
    }
  }
}

/** The provider refused the refresh token itself (invalid, expired, revoked), as opposed to a network failure. */
function isGrantRefusal(error: unknown): boolean {
  const fields = error as { error?: string; status?: number };
  return typeof fields.error === 'string' || (typeof fields.status === 'number' && fields.status >= 400 && fields.status < 500);
}
