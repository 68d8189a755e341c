import { Controller, Headers, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { InvalidInputError } from '@svc/common';
import { CurrentPrincipal } from '../auth/decorators';
import { CatalogRoute } from '../authorization/operation.decorator';
import type { UserPrincipal } from '../auth/principal';
import { EventStreams } from './event-streams.service';

const MAX_EVENT_ID = 64;

/**
 * GET /events (ROUTES events): Server-Sent Events of what the caller may see (docs/dashboard.md, "Event stream").
 * Authenticated as every REST route, by the Authorization header only: a token in the URL
 * (EventSource's habit) would end up in logs and histories, so it is refused.
 */
@ApiTags('events')
@ApiBearerAuth()
@Controller()
export class EventStreamController {
  constructor(private readonly streams: EventStreams) {}

  @CatalogRoute('events')
  @ApiHeader({ name: 'last-event-id', required: false, description: 'resume after this event id (at most 64 characters)' })
  follow(@CurrentPrincipal() principal: UserPrincipal, @Headers('last-event-id') lastEventId: string | undefined, @Req() req: Request, @Res() res: Response): void {
    if (Object.keys(req.query).length > 0) {
      throw new InvalidInputError('GET /events takes no query parameters; send the token as "Authorization: Bearer <token>", never in the URL, and resume with the Last-Event-ID header');
    }
    if (lastEventId !== undefined && lastEventId.length > MAX_EVENT_ID) throw new InvalidInputError(`Last-Event-ID is at most ${MAX_EVENT_ID} characters`);
    this.streams.open({
      principal,
      authorization: req.header('authorization')!,
      lastEventId: lastEventId?.trim() || undefined,
      sink: res,
      begin: () => {
        res.status(200);
        res.setHeader('content-type', 'text/event-stream; charset=utf-8');
        res.setHeader('cache-control', 'no-cache, no-transform');
        res.setHeader('x-accel-buffering', 'no');
        res.flushHeaders();
      },
      onClientGone: (listener) => {
        res.once('close', listener);
        // Gone while the guards ran: 'close' came before anyone listened.
        if (!res.socket || res.socket.destroyed) listener();
      },
    });
  }
}
