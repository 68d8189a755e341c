import { InMemoryWebStorage, User, UserManager, WebStorageStateStore } from 'oidc-client-ts';

/** GET /auth/config's `oauth`: where to sign in and as which client. */
export interface OAuthConfig {
  issuer: string;
  audience: string;
  client_id: string;
  web_client_id: string;
}

const SCOPES = 'openid email profile offline_access';

/**
 * Sign-in with the authorization code and PKCE (oidc-client-ts does the PKCE, the state and the
 * token requests). Tokens live in memory only: a reload or a new tab signs in again (silently
 * while the provider's session lasts). Only the short-lived state of a redirect in progress (the
 * PKCE verifier) goes to sessionStorage, which survives the redirect; it is removed on return.
 * The access token is renewed with the refresh token before it expires; the provider rotates it.
 */
export class Session {
  private readonly manager: UserManager;
  private user: User | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(config: OAuthConfig, origin: string) {
    this.manager = new UserManager({
      authority: config.issuer,
      client_id: config.web_client_id,
      redirect_uri: `${origin}/`,
      post_logout_redirect_uri: `${origin}/`,
      response_type: 'code',
      scope: SCOPES,
      userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
      stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
      automaticSilentRenew: true,
      loadUserInfo: false,
      // The access token is a JWT the API checks by signature alone: revoking it would change nothing.
      revokeTokenTypes: ['refresh_token'],
    });
    this.manager.events.addUserLoaded((user) => this.set(user));
    this.manager.events.addUserUnloaded(() => this.set(null));
    this.manager.events.addSilentRenewError(() => this.set(null));
  }

  /** True when the page is the provider's redirect back (`?code=…&state=…`). */
  static isCallback(location: Location): boolean {
    const query = new URLSearchParams(location.search);
    return query.has('state') && (query.has('code') || query.has('error'));
  }

  get signedIn(): boolean {
    return this.user !== null && !this.user.expired;
  }

  get email(): string {
    const profile = this.user?.profile;
    return String(profile?.email ?? profile?.sub ?? '');
  }

  accessToken(): string | null {
    return this.signedIn ? this.user!.access_token : null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Goes to the provider; `returnTo` (a hash route) is where the page lands afterwards. */
  signIn(returnTo: string): Promise<void> {
    return this.manager.signinRedirect({ state: { returnTo } });
  }

  /** Finishes the redirect back from the provider; returns the hash route to show. */
  async completeSignIn(url: string): Promise<string> {
    const user = await this.manager.signinRedirectCallback(url);
    this.set(user);
    const state = user.state as { returnTo?: string } | undefined;
    return typeof state?.returnTo === 'string' && state.returnTo.startsWith('#/') ? state.returnTo : '#/devices';
  }

  /**
   * Revokes the tokens, forgets them, and ends the provider's session when it offers that
   * (RP-initiated logout), so the next sign-in asks who you are again.
   */
  async signOut(): Promise<void> {
    const idToken = this.user?.id_token;
    try {
      await this.manager.revokeTokens();
    } catch {
      // A provider without revocation: the tokens are forgotten below and expire on their own.
    }
    await this.manager.removeUser();
    this.set(null);
    const metadata = await this.manager.metadataService.getMetadata().catch(() => null);
    if (metadata?.end_session_endpoint) await this.manager.signoutRedirect({ id_token_hint: idToken });
  }

  private set(user: User | null): void {
    this.user = user;
    for (const listener of this.listeners) listener();
  }
}
