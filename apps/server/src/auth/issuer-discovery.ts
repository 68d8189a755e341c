/** The parts of an OpenID provider's discovery document the server uses. */
export interface IssuerMetadata {
  jwks_uri: string;
  userinfo_endpoint?: string;
}

const FETCH_TIMEOUT_MS = 5000;
/** After a failure, answer from the failure for this long instead of hitting the provider again. */
const RETRY_AFTER_MS = 2000;

/**
 * Fetches `<issuer>/.well-known/openid-configuration` on first use and keeps it. A failure is not
 * kept: the next request after a short pause tries again, so an identity provider that is down
 * while the server starts does not stop the server.
 */
export class IssuerDiscovery {
  private pending?: Promise<IssuerMetadata>;
  private failure?: { error: Error; at: number };

  constructor(
    readonly issuer: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The discovery URL: the issuer without its trailing slash, plus the well-known path. */
  get url(): string {
    return `${this.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  }

  metadata(): Promise<IssuerMetadata> {
    if (this.failure && this.now() - this.failure.at < RETRY_AFTER_MS) return Promise.reject(this.failure.error);
    this.pending ??= this.fetchMetadata().then(
      (metadata) => {
        this.failure = undefined;
        return metadata;
      },
      (error: Error) => {
        this.pending = undefined;
        this.failure = { error, at: this.now() };
        throw error;
      },
    );
    return this.pending;
  }

  private async fetchMetadata(): Promise<IssuerMetadata> {
    let body: Partial<IssuerMetadata>;
    try {
      const res = await fetch(this.url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as Partial<IssuerMetadata>;
    } catch (error) {
      throw new Error(`OpenID discovery at ${this.url} failed: ${(error as Error).message}`);
    }
    if (typeof body?.jwks_uri !== 'string') throw new Error(`OpenID discovery at ${this.url} names no jwks_uri`);
    return {
      jwks_uri: body.jwks_uri,
      userinfo_endpoint: typeof body.userinfo_endpoint === 'string' ? body.userinfo_endpoint : undefined,
    };
  }
}
