import { Body, Controller, Get, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../auth/decorators';
import { RegistrationsService } from './registrations.service';
import { RegistrationStatusQuery, RequestRegistrationInput } from './dto';

/** The runtime's side of registration: unauthenticated by nature, so rate-limited and capped. */
@ApiTags('device registration')
@Public()
@Controller('auth/device')
export class RegistrationsController {
  constructor(private readonly registrations: RegistrationsService) {}

  @Post()
  request(@Body() body: RequestRegistrationInput, @Req() req: Request) {
    return this.registrations.request(body, req.ip ?? 'unknown');
  }

  /** `?request_id=…`: pending → {status}; approved → {status, api_key, device_id} once, then 410. */
  @Get('status')
  status(@Query() query: RegistrationStatusQuery) {
    return this.registrations.status(query.request_id);
  }
}
