import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { DEVICE_ID_PATTERN, LIMITS } from '@svc/common';

const FIELD = LIMITS.maxInfoFieldLength;

export class DeviceSystemInfoInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) hostname: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) platform: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) architecture: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) os_version: string;
}

export class RequestRegistrationInput {
  @ApiProperty({ type: () => DeviceSystemInfoInput }) @IsObject() @ValidateNested() @Type(() => DeviceSystemInfoInput) device_info: DeviceSystemInfoInput;

  @ApiProperty({ example: 'user:me@example.com', description: 'user:<email> or org:<org_id>' })
  @IsString()
  @MaxLength(LIMITS.maxInfoFieldLength + 6)
  @Matches(/^(user|org):/, { message: 'owner_scope must be user:<email> or org:<org_id>' })
  owner_scope: string;

  @ApiProperty({ example: 'pi-kitchen-01' })
  @IsString()
  @Matches(DEVICE_ID_PATTERN, { message: 'device_id must be 1-128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit' })
  device_id: string;
}

export class RegistrationStatusQuery {
  @ApiProperty() @IsString() @Matches(/^[A-Za-z0-9_-]{8,64}$/, { message: 'request_id is malformed' }) request_id: string;
}

export class ApproveRegistrationInput {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128) request_id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128) device?: string;
}

export class RejectInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(128) device: string;
}
