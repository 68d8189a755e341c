import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/decorators';
import { ServerAdministration } from '../authorization/operation.decorator';
import type { Principal } from '../auth/principal';
import { UsersService } from './users.service';
import { CheckedInput, DocumentedInput } from '../common/route-input.decorator';
import { PrincipalResult, UserResult } from './responses';

@ApiTags('users')
@ApiBearerAuth()
@ApiSecurity('admin-key')
@Controller()
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** Who the server thinks the caller is: e-mail, scopes, memberships, admin flag. */
  @Get('me')
  @ApiOkResponse({ type: PrincipalResult })
  me(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }

  @Get('users')
  @ServerAdministration('server:manage-users')
  @ApiOkResponse({ type: [UserResult] })
  @DocumentedInput('users_list', 'query')
  list(@CheckedInput('users_list') query: { active?: boolean }): Promise<UserResult[]> {
    return this.users.list(query.active);
  }

  @Post('users/:email/approve')
  @ServerAdministration('server:manage-users')
  @HttpCode(200)
  @ApiOkResponse({ type: UserResult })
  approve(@CurrentPrincipal() principal: Principal, @Param('email') email: string): Promise<UserResult> {
    return this.users.approve(principal, email);
  }

  @Post('users/:email/admin')
  @ServerAdministration('server:manage-users')
  @HttpCode(200)
  @ApiOkResponse({ type: UserResult })
  grantAdmin(@CurrentPrincipal() principal: Principal, @Param('email') email: string): Promise<UserResult> {
    return this.users.grantAdmin(principal, email);
  }

  /** Lets the next sign-in with this address bind the account to a new identity (`sub`). */
  @Post('users/:email/reset-subject')
  @ServerAdministration('server:manage-users')
  @HttpCode(200)
  @ApiOkResponse({ type: UserResult })
  resetSubject(@CurrentPrincipal() principal: Principal, @Param('email') email: string): Promise<UserResult> {
    return this.users.resetSubject(principal, email);
  }
}
