import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { DEVICE_ID_PATTERN, LIMITS } from '@svc/common';

const FIELD = LIMITS.maxInfoFieldLength;

export class DeviceSystemInfoInput {
  @IsString() @IsNotEmpty() @MaxLength(FIELD) hostname: string;
  @IsString() @IsNotEmpty() @MaxLength(FIELD) platform: string;
  @IsString() @IsNotEmpty() @MaxLength(FIELD) architecture: string;
  @IsString() @IsNotEmpty() @MaxLength(FIELD) os_version: string;
}

export class RequestRegistrationInput {
  @IsObject() @ValidateNested() @Type(() => DeviceSystemInfoInput) device_info: DeviceSystemInfoInput;

  @IsString()
  @MaxLength(LIMITS.maxInfoFieldLength + 6)
  @Matches(/^(user|org):/, { message: 'owner_scope must be user:<email> or org:<org_id>' })
  owner_scope: string;

  @IsString()
  @Matches(DEVICE_ID_PATTERN, { message: 'device_id must be 1-128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit' })
  device_id: string;
}

export class RegistrationStatusQuery {
  @IsString() @Matches(/^[A-Za-z0-9_-]{8,64}$/, { message: 'request_id is malformed' }) request_id: string;
}

export class ApproveRegistrationInput {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128) request_id?: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128) device?: string;
}

export class RejectInput {
  @IsString() @IsNotEmpty() @MaxLength(128) device: string;
}
