import { SERVICE_USAGE } from '@svc/runtime';
import { RuntimePassthrough } from '../../runtime-passthrough';

export default class RuntimeStatus extends RuntimePassthrough {
  static override summary = "The systemd unit's state and this device's registration.";
  static override description = SERVICE_USAGE;
  protected readonly verb = 'status';
}
