import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ORG_ROLES, OrgRole } from '@svc/common';
import type { Membership } from '../auth/principal';
import type { UserView } from './users.service';

/** The OpenAPI shape of the users routes' answers (the routes return these types). */
export class UserResult implements UserView {
  @ApiProperty() email: string;
  @ApiProperty() active: boolean;
  @ApiProperty() admin: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) approved_at: string | null;
}

class MembershipResult implements Membership {
  @ApiProperty() orgId: string;
  @ApiProperty({ enum: ORG_ROLES }) role: OrgRole;
}

/** GET /me: a user's identity and scopes, or `{kind: 'admin-key'}` alone for the admin key. */
export class PrincipalResult {
  @ApiProperty({ enum: ['user', 'admin-key'] }) kind: 'user' | 'admin-key';
  @ApiPropertyOptional() email?: string;
  @ApiPropertyOptional({ type: [String], description: 'user:<email> and org:<id> for each membership' }) scopes?: string[];
  @ApiPropertyOptional({ type: [MembershipResult] }) memberships?: MembershipResult[];
  @ApiPropertyOptional() admin?: boolean;
}
