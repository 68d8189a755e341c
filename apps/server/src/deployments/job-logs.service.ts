import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { JOB_LOGS_DEFAULT_TAIL, SubRouteInput, TUNNEL_OPS } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import { currentRequestId } from '../logging/request-context';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';

/**
 * A job's log, read from the device (the runtime keeps a bounded log per job), once OperationGuard
 * authorized device_deploy's `job_logs` route (`device:deploy`: the log may hold what the job
 * prints of its secrets) and checked its input: audit → the device's
 * tunnel (DEVICE_OFFLINE without one) → one `deployments/logs` stream, relayed as text with its
 * own flow control; `follow` keeps it open until the client leaves.
 */
@Injectable()
export class JobLogsService {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
  ) {}

  async stream(principal: UserPrincipal, deviceId: string, input: SubRouteInput<'device_deploy.job_logs'>, res: Response): Promise<void> {
    const { job_id: jobId, follow = false, tail = JOB_LOGS_DEFAULT_TAIL } = input;
    await this.audit.record(principal, 'device.deployment_logs_read', { deviceId, details: `read the log of job ${jobId}${follow ? ' (follow)' : ''}` });
    const tunnel = await this.registry.require(deviceId).openStream({
      op: TUNNEL_OPS.deploymentLogs,
      args: { job: jobId, follow, tail },
      requestId: currentRequestId(),
      actor: principal.email,
    });
    tunnel.body.end();
    res.status(200);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await relayText(tunnel, res);
  }
}

/**
 * Pipes the device's text to the answer; HTTP backpressure pauses the device. A client that
 * leaves cancels the stream (the device stops following); a stream that breaks cuts the answer
 * (no clean end), so the client can tell a lost device from the end of the log.
 */
async function relayText(tunnel: TunnelStream, res: Response): Promise<void> {
  const body = tunnel.body;
  const clean = await new Promise<boolean>((resolve) => {
    body.once('end', () => resolve(true));
    body.once('error', () => resolve(false));
    body.once('close', () => resolve(body.readableEnded));
    res.once('close', () => resolve(false));
    body.pipe(res, { end: false });
  });
  if (clean && !res.destroyed) {
    res.end();
    return;
  }
  tunnel.abort();
  res.destroy();
}
