import { Logger } from '@nestjs/common';
import { claimedEmail } from './email-claims';
import type { IssuerDiscovery } from './issuer-discovery';

export interface UserinfoEmailResolverOptions {
  /** How long an answer is reused for the same subject; default 10 minutes. */
  ttlMs?: number;
  /** Most subjects remembered at once; the oldest entry makes room. Default 1000. */
  maxEntries?: number;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * For access tokens without an `email` claim: asks the issuer's userinfo endpoint, with the
 * caller's own bearer token, and remembers the answer per subject for a while.
 */
export class UserinfoEmailResolver {
  private readonly logger = new Logger(UserinfoEmailResolver.name);
  private readonly cache = new Map<string, { email: string; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly discovery: IssuerDiscovery,
    options: UserinfoEmailResolverOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10 * 60 * 1000;
    this.maxEntries = options.maxEntries ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The e-mail address of `subject`, or undefined when the provider does not tell. Throws, like
   * the token path (claimedEmail), for an address the provider marks unverified; such an answer
   * is not remembered.
   */
  async emailFor(subject: string, accessToken: string): Promise<string | undefined> {
    const cached = this.cache.get(subject);
    if (cached && cached.expiresAt > this.now()) return cached.email;
    this.cache.delete(subject);

    const claims = await this.fetchClaims(subject, accessToken);
    const email = claims && claimedEmail(claims);
    if (email === undefined) return undefined;
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(subject, { email, expiresAt: this.now() + this.ttlMs });
    return email;
  }

  /** The userinfo answer for `subject`; undefined when there is none to use. Never throws. */
  private async fetchClaims(subject: string, accessToken: string): Promise<Record<string, unknown> | undefined> {
    let endpoint: string | undefined;
    try {
      endpoint = (await this.discovery.metadata()).userinfo_endpoint;
    } catch (error) {
      this.logger.warn((error as Error).message);
      return undefined;
    }
    if (!endpoint) return undefined;
    try {
      const res = await fetch(endpoint, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        this.logger.warn(`userinfo endpoint ${endpoint} answered HTTP ${res.status}`);
        return undefined;
      }
      const claims: unknown = await res.json();
      if (claims === null || typeof claims !== 'object') return undefined;
      // OpenID Connect Core 5.3.2: a userinfo answer for another subject must not be used.
      if ((claims as { sub?: unknown }).sub !== subject) {
        this.logger.warn(`userinfo endpoint ${endpoint} answered for a different subject`);
        return undefined;
      }
      return claims as Record<string, unknown>;
    } catch (error) {
      this.logger.warn(`userinfo endpoint ${endpoint} failed: ${(error as Error).message}`);
      return undefined;
    }
  }
}
