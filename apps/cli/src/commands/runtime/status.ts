import { SERVICE_USAGE } from '@svc/runtime';
import { runtimeHelp } from '../../runtime-help';
import { RuntimePassthrough } from '../../runtime-passthrough';

const help = runtimeHelp('status', SERVICE_USAGE);

export default class RuntimeStatus extends RuntimePassthrough {
  static override summary = "Show the runtime running on this device, its systemd unit and the registration.";
  static override usage = help.usage;
  static override description = help.description;
  static override flags = help.flags;
  protected readonly verb = 'status';
}
