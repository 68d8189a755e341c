import { Controller, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, UsersOnly } from '../auth/decorators';
import type { UserPrincipal } from '../auth/principal';
import type { RouteInput } from '@svc/common';
import { Input, Operation } from '../authorization/operation.decorator';
import { ExecService } from './exec.service';
import { NDJSON, NdjsonResponse } from './ndjson-response';

/** device_exec over REST: JSON by default, NDJSON lines as produced with `Accept: application/x-ndjson`. */
@ApiTags('exec')
@ApiBearerAuth()
@UsersOnly()
@Controller()
export class ExecController {
  constructor(private readonly exec: ExecService) {}

  @Operation('device_exec')
  @ApiProduces('application/json', NDJSON)
  async run(@CurrentPrincipal() principal: UserPrincipal, @Input() body: RouteInput<'device_exec'>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signal = abortWhenClientLeaves(res);
    if (req.accepts(['application/json', NDJSON]) === NDJSON) {
      const out = new NdjsonResponse(res);
      await this.exec.stream(principal, body, out, signal);
      out.end();
      return;
    }
    res.status(200).json(await this.exec.run(principal, body, signal));
  }
}

/** Aborts when the response closes before it was finished: the device then stops the command. */
function abortWhenClientLeaves(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
