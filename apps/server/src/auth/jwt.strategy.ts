import { createPublicKey, KeyObject } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { JwksClient, type SigningKey } from 'jwks-rsa';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { Algorithm } from 'jsonwebtoken';
import { UnauthenticatedError } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { accountEmail, claimedEmail } from './email-claims';
import { IssuerDiscovery } from './issuer-discovery';
import type { TokenIdentity } from './token-identity';
import { UserinfoEmailResolver } from './userinfo-email.resolver';
import { VerifiedTokens } from './verified-tokens';

export const JWT_STRATEGY = 'jwt';

/** Asymmetric only: `none` and HS* (where a public key could serve as the secret) are refused. */
export const ACCEPTED_JWT_ALGORITHMS: Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'];

/** Allowance for clock skew between the identity provider and this server. */
export const CLOCK_TOLERANCE_SECONDS = 30;

const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();

/**
 * Validates `Authorization: Bearer <JWT>` access tokens: signature from the issuer's JWKS
 * (discovered on first use), `iss` equal to OAUTH_ISSUER, OAUTH_AUDIENCE among `aud`, `exp` with
 * 30 s of tolerance. Puts a TokenIdentity on `request.user`. Never logs tokens. A token seen
 * before is taken from VerifiedTokens (until its expiry, at most a minute) instead of being
 * checked again.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  private readonly userinfo: UserinfoEmailResolver;
  private readonly verified = new VerifiedTokens();

  constructor(@Inject(SERVER_CONFIG) config: ServerConfig) {
    const discovery = new IssuerDiscovery(config.oauth.issuer);
    const keys = new IssuerSigningKeys(discovery);
    super({
      jwtFromRequest: bearerToken,
      secretOrKeyProvider: (_req: unknown, rawJwt: string, done: (err: unknown, key?: string) => void) => {
        keys.keyFor(rawJwt).then(
          // jsonwebtoken verifies with a KeyObject as well as with a PEM string.
          (key) => done(null, key as unknown as string),
          (error: unknown) => done(error),
        );
      },
      issuer: config.oauth.issuer,
      audience: config.oauth.audience,
      algorithms: ACCEPTED_JWT_ALGORITHMS,
      jsonWebTokenOptions: { clockTolerance: CLOCK_TOLERANCE_SECONDS },
      passReqToCallback: true,
    });
    this.userinfo = new UserinfoEmailResolver(discovery);
  }

  override authenticate(req: Request, options?: object): void {
    const token = bearerToken(req);
    const identity = token ? this.verified.identityOf(token) : undefined;
    if (identity) this.success(identity);
    else super.authenticate(req, options);
  }

  async validate(req: Request, payload: Record<string, unknown>): Promise<TokenIdentity> {
    const { iss, sub, exp } = payload;
    if (typeof sub !== 'string' || sub === '') throw new UnauthenticatedError('Access token has no subject (sub claim)');
    if (typeof exp !== 'number') throw new UnauthenticatedError('Access token has no expiry (exp claim)');
    const claimed = claimedEmail(payload) ?? (await this.userinfo.emailFor(sub, bearerToken(req)!));
    if (!claimed) {
      throw new UnauthenticatedError(
        'Access token carries no email claim and the identity provider did not return one from userinfo; request the "email" scope',
      );
    }
    // passport-jwt has checked that `iss` equals OAUTH_ISSUER.
    const identity: TokenIdentity = { issuer: String(iss), subject: sub, email: accountEmail(claimed), tokenExpiresAt: exp };
    this.verified.remember(bearerToken(req)!, identity);
    return identity;
  }
}

/** The issuer's public keys by `kid`, via jwks-rsa (cached, rate-limited) at the discovered jwks_uri. */
class IssuerSigningKeys {
  private readonly logger = new Logger(JwtStrategy.name);
  private client?: Promise<JwksClient>;
  /**
   * Each signing key jwks-rsa hands out (the same object while its cache holds the key), parsed
   * once: its getPublicKey() turns the JWK into a PEM on every call, and jsonwebtoken would then
   * parse that PEM on every verification. A key jwks-rsa fetches anew is a new object, parsed anew,
   * so rotation and removal of keys work as jwks-rsa decides.
   */
  private readonly parsedKeys = new WeakMap<SigningKey, KeyObject>();

  constructor(private readonly discovery: IssuerDiscovery) {}

  async keyFor(rawJwt: string): Promise<KeyObject> {
    const header = decodeHeader(rawJwt);
    if (!header) throw new Error('Malformed token');
    if (!ACCEPTED_JWT_ALGORITHMS.includes(header.alg as Algorithm)) throw new Error(`Token algorithm ${String(header.alg)} is not accepted`);
    const client = await this.jwksClient();
    const key = await client.getSigningKey(typeof header.kid === 'string' ? header.kid : undefined);
    let parsed = this.parsedKeys.get(key);
    if (!parsed) {
      parsed = createPublicKey(key.getPublicKey());
      this.parsedKeys.set(key, parsed);
    }
    return parsed;
  }

  private jwksClient(): Promise<JwksClient> {
    this.client ??= this.discovery.metadata().then(
      ({ jwks_uri: jwksUri }) =>
        new JwksClient({
          jwksUri,
          cache: true,
          cacheMaxEntries: 10,
          cacheMaxAge: 10 * 60 * 1000,
          rateLimit: true,
          jwksRequestsPerMinute: 10,
          timeout: 5000,
        }),
      (error: Error) => {
        this.client = undefined;
        this.logger.warn(`cannot validate access tokens yet: ${error.message}`);
        throw error;
      },
    );
    return this.client;
  }
}

function decodeHeader(rawJwt: string): Record<string, unknown> | undefined {
  const [header, , signature] = rawJwt.split('.');
  if (!header || signature === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
