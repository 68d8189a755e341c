/** Who a valid access token speaks for: what JwtStrategy puts on `request.user`. */
export interface TokenIdentity {
  /** The token's `iss` (always the configured OAUTH_ISSUER): a `sub` means something only there. */
  issuer: string;
  /** The token's `sub`: the user's id at the identity provider. */
  subject: string;
  /**
   * Canonical (see canonicalEmail): from the token's `email` claim, or the issuer's userinfo
   * endpoint when the claim is absent.
   */
  email: string;
  /** The token's `exp`, in seconds since the epoch. */
  tokenExpiresAt: number;
}
