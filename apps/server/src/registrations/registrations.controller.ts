import { Controller, Headers, Req } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CatalogRouteInput, REGISTRATION_PROOF_HEADERS, RegistrationRequestResult, RegistrationStatusResult } from '@svc/common';
import { CheckedInput } from '../common/route-input.decorator';
import { CatalogRoute } from '../authorization/operation.decorator';
import { RegistrationsService } from './registrations.service';

/** The runtime's side of registration (ROUTES registration_request and registration_status): unauthenticated by nature, so rate-limited and capped. */
@ApiTags('device registration')
@Controller()
export class RegistrationsController {
  constructor(private readonly registrations: RegistrationsService) {}

  @CatalogRoute('registration_request')
  request(@CheckedInput('registration_request') body: CatalogRouteInput<'registration_request'>, @Req() req: Request): Promise<RegistrationRequestResult> {
    return this.registrations.request(body, req.ip ?? 'unknown');
  }

  @CatalogRoute('registration_status')
  @ApiHeader({ name: REGISTRATION_PROOF_HEADERS.timestamp, description: 'Unix time in seconds, within 300 s of the server clock' })
  @ApiHeader({ name: REGISTRATION_PROOF_HEADERS.signature, description: 'base64url Ed25519 signature of "svc-registration-status\\n<request_id>\\n<timestamp>"' })
  status(
    @CheckedInput('registration_status') query: CatalogRouteInput<'registration_status'>,
    @Headers(REGISTRATION_PROOF_HEADERS.timestamp) timestamp: string | undefined,
    @Headers(REGISTRATION_PROOF_HEADERS.signature) signature: string | undefined,
  ): Promise<RegistrationStatusResult> {
    return this.registrations.status(query.request_id, { timestamp, signature });
  }
}
