import { Injectable } from '@nestjs/common';
import { capabilityOf, parseShellArgs, ShellStreamArgs, TUNNEL_OPS } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';

/** A shell runs anything the device's user may run: the capability of device_exec (viewers get 403). */
export const SHELL_CAPABILITY = capabilityOf('device_exec');

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
    private readonly policy: AccessPolicy,
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
  ) {}

  /** `args` are the client stream's `svc-args`, the `/v1/shell` arguments (docs/protocol.md, "Shell"). */
  async open(principal: UserPrincipal, ref: string, args: Record<string, unknown>, requestId: string): Promise<TunnelStream> {
    const checked = parseShellArgs(args);
    const { device } = await this.policy.requireDevice(principal, ref, SHELL_CAPABILITY);
    await this.audit.record(principal, 'device.shell_opened', { deviceId: device.id, details: auditDetails(checked) });
    return this.registry.require(device.id).openStream({ op: TUNNEL_OPS.shell, args: checked, requestId, actor: principal.email });
  }
}

function auditDetails(args: ShellStreamArgs): string {
  const text = `shell: ${args.command ? args.command.join(' ') : 'login shell'}`;
  return text.length <= AUDIT_DETAILS_CHARS ? text : `${text.slice(0, AUDIT_DETAILS_CHARS)}… (${text.length} chars)`;
}
