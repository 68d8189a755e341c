import { Injectable } from '@nestjs/common';
import { describeForwardTarget, forwardStreamRequest, parseForwardTarget } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import type { AuthorizeDevice } from '../authorization/authorize-device';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { ForwardAuditThrottle } from './forward-audit.throttle';

/**
 * Port forwarding: authorize (device:forward, so viewers get 403 and strangers 404) → audit
 * (throttled, see ForwardAuditThrottle; written before the device is reached, so attempts on an
 * offline device show too) → the device's tunnel (DEVICE_OFFLINE without one) → a forward stream
 * that the device accepts only once its target accepted the connection.
 */
@Injectable()
export class ForwardService {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
    private readonly auditThrottle: ForwardAuditThrottle,
  ) {}

  /**
   * `args` are the client stream's `svc-args` as the catalog's route checked them (`{target}`);
   * which fields go with which kind is parseForwardTarget's rule, as for a forward spec.
   */
  async open(principal: UserPrincipal, authorize: AuthorizeDevice, args: Record<string, unknown>, requestId: string): Promise<TunnelStream> {
    const checked = parseForwardTarget(args.target);
    const { device } = await authorize();
    const where = `${checked.kind} ${describeForwardTarget(checked)}`;
    if (this.auditThrottle.shouldRecord(principal.email, device.id, where)) {
      await this.audit.record(principal, 'device.forward_opened', { deviceId: device.id, details: `forward to ${where}` });
    }
    const { op, args: streamArgs } = forwardStreamRequest(checked);
    return this.registry.require(device.id).openStream({ op, args: streamArgs, requestId, actor: principal.email });
  }
}
