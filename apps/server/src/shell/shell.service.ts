import { Injectable } from '@nestjs/common';
import { parseShellArgs, ShellStreamArgs, TUNNEL_OPS } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import type { AuthorizeDevice } from '../authorization/authorize-device';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';

/** Audit details name the program, never what is typed, and stay short. */
const AUDIT_DETAILS_CHARS = 500;

/**
 * Interactive shells: validate the arguments (the runtime's own rule, so a bad size is a 400
 * even for an offline device) → authorize (device:exec, so viewers get 403 and strangers 404) →
 * audit (before the device is reached, so attempts on an offline device show too) → the device's
 * tunnel (DEVICE_OFFLINE without one) → a shell stream, accepted once the PTY runs. The client
 * stream is then spliced to it byte for byte: the client and the runtime speak the frames.
 */
@Injectable()
export class ShellService {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
  ) {}

  /** `args` are the client stream's `svc-args`, the `/v1/shell` arguments (docs/protocol.md, "Shell"). */
  async open(principal: UserPrincipal, authorize: AuthorizeDevice, args: Record<string, unknown>, requestId: string): Promise<TunnelStream> {
    const checked = parseShellArgs(args);
    const { device } = await authorize();
    await this.audit.record(principal, 'device.shell_opened', { deviceId: device.id, details: auditDetails(checked) });
    return this.registry.require(device.id).openStream({ op: TUNNEL_OPS.shell, args: checked, requestId, actor: principal.email });
  }
}

function auditDetails(args: ShellStreamArgs): string {
  const text = `shell: ${args.command ? args.command.join(' ') : 'login shell'}`;
  return text.length <= AUDIT_DETAILS_CHARS ? text : `${text.slice(0, AUDIT_DETAILS_CHARS)}… (${text.length} chars)`;
}
