import { Controller, Get, Headers, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { REGISTRATION_PROOF_HEADERS, RegistrationRequestResult, registrationRequestSchema, RegistrationStatusResult, registrationStatusSchema } from '@svc/common';
import { CheckedInput, DocumentedInput } from '../common/route-input.decorator';
import { RouteResponse } from '../common/operation-response.decorator';
import { Public } from '../auth/decorators';
import { RegistrationsService } from './registrations.service';
import type { RequestRegistrationInput } from './registration-inputs';

/** The runtime's side of registration: unauthenticated by nature, so rate-limited and capped. */
@ApiTags('device registration')
@Public()
@Controller('auth/device')
export class RegistrationsController {
  constructor(private readonly registrations: RegistrationsService) {}

  @Post()
  @RouteResponse('registration request', registrationRequestSchema, 201)
  @DocumentedInput('registration_request', 'body')
  request(@CheckedInput('registration_request') body: RequestRegistrationInput, @Req() req: Request): Promise<RegistrationRequestResult> {
    return this.registrations.request(body, req.ip ?? 'unknown');
  }

  /**
   * `?request_id=…`, signed by the requesting key (docs/protocol.md): pending → {status};
   * approved → {status, api_key, device_id} once, then 410. No valid proof → 401.
   */
  @Get('status')
  @RouteResponse('registration status', registrationStatusSchema)
  @DocumentedInput('registration_status', 'query')
  @ApiHeader({ name: REGISTRATION_PROOF_HEADERS.timestamp, description: 'Unix time in seconds, within 300 s of the server clock' })
  @ApiHeader({ name: REGISTRATION_PROOF_HEADERS.signature, description: 'base64url Ed25519 signature of "svc-registration-status\\n<request_id>\\n<timestamp>"' })
  status(
    @CheckedInput('registration_status') query: { request_id: string },
    @Headers(REGISTRATION_PROOF_HEADERS.timestamp) timestamp: string | undefined,
    @Headers(REGISTRATION_PROOF_HEADERS.signature) signature: string | undefined,
  ): Promise<RegistrationStatusResult> {
    return this.registrations.status(query.request_id, { timestamp, signature });
  }
}
