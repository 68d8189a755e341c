import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import { IssuedTicketResult } from './dto';
import { ticketInput, ticketInputSchema } from './ticket-input';
import { TicketsService } from './tickets.service';

/** Tickets for the browser's terminal and exec WebSocket (docs/dashboard.md, "Tickets and the terminal bridge"). */
@ApiTags('terminal')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  @Post('api/tickets')
  @HttpCode(201)
  @ApiBody({ schema: ticketInputSchema() as never })
  @ApiCreatedResponse({ type: IssuedTicketResult })
  issue(@CurrentPrincipal() principal: UserPrincipal, @Body() body: unknown, @Req() req: Request): Promise<IssuedTicketResult> {
    const { device, operation, args } = ticketInput(body);
    return this.tickets.issue(principal, device, operation, args, req.headers);
  }
}
