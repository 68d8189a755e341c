import { Injectable } from '@nestjs/common';
import passport from 'passport';
import { UnauthenticatedError } from '@svc/common';
import { UsersService } from '../users/users.service';
import { tokenOutcome } from './authentication.guard';
import { JWT_STRATEGY, JwtStrategy } from '../auth/jwt.strategy';
import type { UserPrincipal } from '../auth/principal';
import type { TokenIdentity } from '../auth/token-identity';

/**
 * The REST guard's user path for callers outside Express (the client streams on UNIFIED_PORT):
 * the same JwtStrategy through passport, the same failure messages, the same account rules
 * (UsersService.principalFor). Not a second token validator.
 */
@Injectable()
export class BearerAuthenticator {
  // Injecting the strategy guarantees it is registered with passport before the first call.
  constructor(
    private readonly users: UsersService,
    _strategy: JwtStrategy,
  ) {}

  /** `authorization` as received: `Bearer <access token>`. */
  async authenticate(authorization: string | undefined): Promise<UserPrincipal> {
    if (!authorization) throw new UnauthenticatedError('Authentication required: send "Authorization: Bearer <access token>"');
    const identity = await new Promise<TokenIdentity>((resolve, reject) => {
      const request = { headers: { authorization } };
      passport.authenticate(JWT_STRATEGY, { session: false }, (err: unknown, user: TokenIdentity | false, info: unknown) => {
        try {
          resolve(tokenOutcome(err, user as TokenIdentity, info));
        } catch (error) {
          reject(error);
        }
      })(request, {}, reject);
    });
    return this.users.principalFor(identity);
  }
}
