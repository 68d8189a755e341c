import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { TOOL_ROLES, ToolRole } from '@svc/common';

export class CreateOrgInput {
  @IsString() @IsNotEmpty() @MaxLength(63) id: string;
  @IsString() @IsNotEmpty() @MaxLength(254) email: string;
}

export class UpdateOrgInput {
  @IsString() @IsNotEmpty() @MaxLength(63) new_id: string;
}

export class AddMemberInput {
  @IsString() @IsNotEmpty() @MaxLength(254) email: string;
  @IsIn(TOOL_ROLES, { message: `role must be one of ${TOOL_ROLES.join(', ')}` }) role: ToolRole;
}

export class OrgDeviceInput {
  @IsString() @IsNotEmpty() @MaxLength(256) device: string;
}
