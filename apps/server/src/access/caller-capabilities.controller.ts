import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ORG_CAPABILITIES, OrgCapability, SERVER_CAPABILITIES, ServerCapability } from '@svc/common';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';

class ServerCapabilitiesResult {
  @ApiProperty({ enum: SERVER_CAPABILITIES, isArray: true }) capabilities: ServerCapability[];
}

class OrgCapabilitiesResult {
  @ApiProperty() org_id: string;
  @ApiProperty({ enum: ORG_CAPABILITIES, isArray: true }) capabilities: OrgCapability[];
}

/**
 * What the caller may do on the server and on an organization, as AccessPolicy decides it (like
 * GET /devices/{device}/capabilities), so the dashboard shows only controls that will work; the
 * routes refuse the rest anyway. An organization the caller cannot see is not found.
 */
@ApiTags('access')
@ApiBearerAuth()
@Controller()
export class CallerCapabilitiesController {
  constructor(private readonly policy: AccessPolicy) {}

  @Get('me/capabilities')
  @ApiOkResponse({ type: ServerCapabilitiesResult })
  server(@CurrentPrincipal() principal: Principal): ServerCapabilitiesResult {
    return { capabilities: this.policy.serverCapabilities(principal) };
  }

  @Get('orgs/:org_id/capabilities')
  @ApiOkResponse({ type: OrgCapabilitiesResult })
  async org(@CurrentPrincipal() principal: Principal, @Param('org_id') orgId: string): Promise<OrgCapabilitiesResult> {
    return { org_id: orgId, capabilities: await this.policy.orgCapabilities(principal, orgId) };
  }
}
