import { SERVICE_USAGE } from '@svc/runtime';
import { RuntimePassthrough } from '../../runtime-passthrough';

export default class RuntimeStatus extends RuntimePassthrough {
  static override summary = "The runtime running on this device (pid, device, server, carrier, uptime), the systemd unit and the registration.";
  static override description = SERVICE_USAGE;
  protected readonly verb = 'status';
}
