import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { UsersService } from './users.service';
import { ListUsersQuery } from './dto';

@ApiTags('users')
@ApiBearerAuth()
@ApiSecurity('admin-key')
@Controller()
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** Who the server thinks the caller is: e-mail, scopes, memberships, admin flag. */
  @Get('me')
  me(@CurrentPrincipal() principal: Principal) {
    return principal;
  }

  @Get('users')
  @AdminOnly()
  list(@Query() query: ListUsersQuery) {
    return this.users.list(query.active === undefined ? undefined : query.active === 'true');
  }

  @Post('users/:email/approve')
  @AdminOnly()
  @HttpCode(200)
  approve(@CurrentPrincipal() principal: Principal, @Param('email') email: string) {
    return this.users.approve(principal, email);
  }

  @Post('users/:email/admin')
  @AdminOnly()
  @HttpCode(200)
  grantAdmin(@CurrentPrincipal() principal: Principal, @Param('email') email: string) {
    return this.users.grantAdmin(principal, email);
  }

  /** Lets the next sign-in with this address bind the account to a new identity (`sub`). */
  @Post('users/:email/reset-subject')
  @AdminOnly()
  @HttpCode(200)
  resetSubject(@CurrentPrincipal() principal: Principal, @Param('email') email: string) {
    return this.users.resetSubject(principal, email);
  }
}
