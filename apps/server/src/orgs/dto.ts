import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { TOOL_ROLES, ToolRole } from '@svc/common';

export class CreateOrgInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(63) id: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(254) email: string;
}

export class UpdateOrgInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(63) new_id: string;
}

export class AddMemberInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(254) email: string;
  @ApiProperty({ enum: TOOL_ROLES }) @IsIn(TOOL_ROLES, { message: `role must be one of ${TOOL_ROLES.join(', ')}` }) role: ToolRole;
}

export class OrgDeviceInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(256) device: string;
}
