import { Injectable } from '@nestjs/common';
import { TUNNEL_OPS } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import type { AuthorizeDevice } from '../authorization/authorize-device';
import { ForwardAuditThrottle } from '../forwarding/forward-audit.throttle';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';

/** The throttle's target key for engine connections (forward targets are `tcp …` / `unix …`). */
const AUDIT_TARGET = 'container engine';

/**
 * Container engine passthrough (docker_exec): one client stream per connection the local
 * `docker` CLI makes, spliced to the device's engine socket. The engine is root on the device,
 * so this needs device:exec (not device:forward); the client cannot choose the socket, the
 * runtime's configuration does. Audited like forwards, once per user and device per minute: one
 * `docker` command opens several connections.
 */
@Injectable()
export class DockerService {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
    private readonly auditThrottle: ForwardAuditThrottle,
  ) {}

  /** The client stream's `svc-args` are `{}`, as the catalog's route says (ClientStreamRouter checked them). */
  async open(principal: UserPrincipal, authorize: AuthorizeDevice, _args: Record<string, unknown>, requestId: string): Promise<TunnelStream> {
    const { device } = await authorize();
    if (this.auditThrottle.shouldRecord(principal.email, device.id, AUDIT_TARGET)) {
      await this.audit.record(principal, 'device.docker_opened', { deviceId: device.id, details: 'container engine connection' });
    }
    return this.registry.require(device.id).openStream({ op: TUNNEL_OPS.docker, args: {}, requestId, actor: principal.email });
  }
}
