import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateBy, ValidateNested } from 'class-validator';
import { DEVICE_ID_PATTERN, isPublicKey, LIMITS } from '@svc/common';
import { DeviceName } from '../common/validators/device-name.validator';
import { NoControlChars } from '../common/validators/no-control-chars.validator';

const FIELD = LIMITS.maxInfoFieldLength;

export class DeviceSystemInfoInput {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) @NoControlChars() hostname: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) @NoControlChars() platform: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) @NoControlChars() architecture: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(FIELD) @NoControlChars() os_version: string;
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

  @ApiProperty({ example: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', description: 'The runtime identity key: base64url (no padding) of the raw 32-byte Ed25519 public key' })
  @ValidateBy({ name: 'isPublicKey', validator: { validate: isPublicKey, defaultMessage: () => 'public_key must be base64url (no padding) of a 32-byte Ed25519 public key' } })
  public_key: string;

  @ApiPropertyOptional({ example: 'kitchen display', description: 'Display name (svc runtime run --name); the host name when omitted' })
  @IsOptional()
  @DeviceName()
  name?: string;
}

export class RegistrationStatusQuery {
  @ApiProperty() @IsString() @Matches(/^[A-Za-z0-9_-]{8,64}$/, { message: 'request_id is malformed' }) request_id: string;
}

/** Bulk reject: every pending request the caller may decide that matches all the given filters. */
export class RejectRegistrationsInput {
  @ApiPropertyOptional({ example: 'user:me@example.com' }) @IsOptional() @IsString() @IsNotEmpty() @MaxLength(LIMITS.maxInfoFieldLength + 6) owner_scope?: string;
  @ApiPropertyOptional({ example: '203.0.113.7' }) @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) source_address?: string;
  @ApiPropertyOptional({ example: 'pi-kitchen-01' }) @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128) device_id?: string;
}
