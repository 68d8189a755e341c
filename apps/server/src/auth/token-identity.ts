/** Who a valid access token speaks for: what JwtStrategy puts on `request.user`. */
export interface TokenIdentity {
  /** The token's `sub`: the user's id at the identity provider. */
  subject: string;
  /** From the token's `email` claim, or the issuer's userinfo endpoint when the claim is absent. */
  email: string;
  /** The token's `exp`, in seconds since the epoch. */
  tokenExpiresAt: number;
}
