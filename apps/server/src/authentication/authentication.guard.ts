import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { DomainError, UnauthenticatedError } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { UsersService } from '../users/users.service';
import { AccessPolicy } from '../authorization/access-policy.service';
import { ACCESS_LEVEL, AccessLevel, IS_PUBLIC } from '../auth/decorators';
import { ADMIN_KEY_HEADER, adminKeyMatches } from '../auth/admin-key';
import type { Principal } from '../auth/principal';
import type { TokenIdentity } from '../auth/token-identity';

type AuthedRequest = Request & { principal?: Principal; user?: TokenIdentity };

/**
 * The global guard: every route needs a principal unless marked @Public(). The admin key travels
 * in `X-Admin-Key`; users send `Authorization: Bearer <access token>`, validated by JwtStrategy.
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly users: UsersService,
    private readonly policy: AccessPolicy,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    req.principal = await this.authenticate(context, req);
    // A user-only route (the device routes): AccessPolicy refuses the admin key, and audits it.
    if (this.reflector.getAllAndOverride<AccessLevel>(ACCESS_LEVEL, targets) === 'user') await this.policy.requireUser(req.principal);
    return true;
  }

  private async authenticate(context: ExecutionContext, req: AuthedRequest): Promise<Principal> {
    const adminKey = req.header(ADMIN_KEY_HEADER);
    if (adminKey !== undefined) {
      if (!adminKeyMatches(adminKey, this.config.adminKey)) throw new UnauthenticatedError('Invalid admin key');
      return { kind: 'admin-key' };
    }
    if (!req.header('authorization')) {
      throw new UnauthenticatedError('Authentication required: send "Authorization: Bearer <access token>" or "X-Admin-Key"');
    }
    await super.canActivate(context);
    return this.users.principalFor(req.user!);
  }

  override handleRequest<T>(err: unknown, user: T, info: unknown): T {
    return tokenOutcome(err, user, info);
  }
}

/** Passport's outcome: a TokenIdentity, or an error/info explaining the refusal (also BearerAuthenticator's). */
export function tokenOutcome<T>(err: unknown, user: T, info: unknown): T {
  if (err instanceof DomainError) throw err;
  if (user) return user;
  throw new UnauthenticatedError(describeTokenFailure(info ?? err));
}

function describeTokenFailure(info: unknown): string {
  const name = (info as { name?: string })?.name;
  if (name === 'TokenExpiredError') return 'Access token has expired';
  if (name === 'NotBeforeError') return 'Access token is not valid yet';
  if (info instanceof Error && /audience/i.test(info.message)) return 'Access token has the wrong audience';
  if (info instanceof Error && /issuer/i.test(info.message)) return 'Access token has the wrong issuer';
  return 'Invalid access token';
}
