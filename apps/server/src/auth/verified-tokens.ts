import { createHash } from 'node:crypto';
import type { TokenIdentity } from './token-identity';

/** At most this many tokens are remembered; past it the oldest is forgotten. */
export const VERIFIED_TOKENS_MAX = 10_000;
/**
 * A token is taken from memory for at most this long after its check. Below jwks-rsa's own key
 * cache (10 minutes), so a signing key the issuer withdraws stops being trusted no later here.
 */
export const VERIFIED_TOKEN_MAX_AGE_MS = 60_000;

/**
 * Access tokens this server has verified (signature, issuer, audience, expiry) and the identity
 * each stands for, so that a client presenting the same token on every request pays for the
 * signature check once. An entry ends at the token's `exp` (without the clock tolerance: past it
 * the token is checked again, with it) or VERIFIED_TOKEN_MAX_AGE_MS after the check, whichever
 * comes first. Entries are found by the SHA-256 of the token, never the token itself: how long a
 * lookup takes says nothing about the tokens held (finding one needs a preimage), and no token
 * stays in memory.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { identity: TokenIdentity; until: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = VERIFIED_TOKENS_MAX,
  ) {}

  identityOf(token: string): TokenIdentity | undefined {
    const key = digest(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() < entry.until) return entry.identity;
    this.entries.delete(key);
    return undefined;
  }

  remember(token: string, identity: TokenIdentity): void {
    const now = this.now();
    const until = Math.min(identity.tokenExpiresAt * 1000, now + VERIFIED_TOKEN_MAX_AGE_MS);
    if (until <= now) return;
    const key = digest(token);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { identity, until });
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64');
}
