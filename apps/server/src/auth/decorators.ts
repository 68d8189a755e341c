import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Principal } from './principal';

export const IS_PUBLIC = 'svc:isPublic';
export const ACCESS_LEVEL = 'svc:accessLevel';

/** Opts a route out of authentication (every other route requires a principal). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * `user`: a user token only (device routes: the admin key is not a device credential; AccessPolicy
 * refuses it, requireUser, and audits the refusal). Unmarked
 * authenticated routes accept either. What a principal may do is AccessPolicy's to decide
 * (`@Operation`, `@CatalogRoute` in authorization/).
 */
export type AccessLevel = 'user';
export const UsersOnly = () => SetMetadata(ACCESS_LEVEL, 'user' satisfies AccessLevel);

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<{ principal: Principal }>().principal;
});
