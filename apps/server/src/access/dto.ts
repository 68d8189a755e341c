import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { TOOL_ROLES, ToolRole } from '@svc/common';

export class AddAccessInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(256) email_or_org_id: string;
  @ApiProperty({ enum: TOOL_ROLES }) @IsIn(TOOL_ROLES, { message: `role must be one of ${TOOL_ROLES.join(', ')}` }) role: ToolRole;
}
