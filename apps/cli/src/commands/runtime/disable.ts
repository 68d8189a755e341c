import { SERVICE_USAGE } from '@svc/runtime';
import { runtimeHelp } from '../../runtime-help';
import { RuntimePassthrough } from '../../runtime-passthrough';

const help = runtimeHelp('disable', SERVICE_USAGE);

export default class RuntimeDisable extends RuntimePassthrough {
  static override summary = "Stop and remove the systemd unit.";
  static override usage = help.usage;
  static override description = help.description;
  static override flags = help.flags;
  protected readonly verb = 'disable';
}
