import { Injectable } from '@nestjs/common';
import { parseExecArgs, TUNNEL_OPS } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import type { AuthorizeDevice } from '../authorization/authorize-device';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { execAuditDetails } from './exec-audit';
import { DEVICE_GRACE_MS } from './exec-tunnel';

/**
 * device_exec as a client stream (docs/protocol.md, "Exec stream"): the `svc` CLI's way to run a
 * command like `ssh host cmd`, with stdin sent as it is read and output received as produced,
 * byte for byte. Same rules as POST /api/exec: the runtime's argument rules (a 400 even for an
 * offline device) → authorize (device:exec) → audit `device.exec` → the device's tunnel → an
 * exec stream, spliced to the client, which speaks its frames (STDIN, STDIN_EOF, SIGNAL in;
 * STDOUT, STDERR, EXIT out). The server's deadline is the command's timeout plus the device's
 * grace, as for the REST call: past it the stream is cancelled and the device kills the command.
 */
@Injectable()
export class ExecStreamService {
  constructor(
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
  ) {}

  /** `args` are the client stream's `svc-args` as the catalog's route checked them: `{command, timeout_secs?, stdin?}` (`env` and `cwd` stay the runtime's own, for deployments). */
  async open(principal: UserPrincipal, authorize: AuthorizeDevice, args: Record<string, unknown>, requestId: string): Promise<TunnelStream> {
    const checked = parseExecArgs(args);
    const { device } = await authorize();
    await this.audit.record(principal, 'device.exec', { deviceId: device.id, details: execAuditDetails(checked.command) });
    const tunnel = await this.registry.require(device.id).openStream({ op: TUNNEL_OPS.exec, args: checked, requestId, actor: principal.email });
    const deadline = setTimeout(() => tunnel.abort(), checked.timeout_secs * 1000 + DEVICE_GRACE_MS);
    deadline.unref();
    tunnel.body.once('close', () => clearTimeout(deadline));
    return tunnel;
  }
}
