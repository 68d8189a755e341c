import { SERVICE_USAGE } from '@svc/runtime';
import { runtimeHelp } from '../../runtime-help';
import { RuntimePassthrough } from '../../runtime-passthrough';

const help = runtimeHelp('enable', SERVICE_USAGE);

export default class RuntimeEnable extends RuntimePassthrough {
  static override summary = "Run `svc runtime run` as a systemd unit, so the device survives reboots.";
  static override usage = help.usage;
  static override description = help.description;
  static override flags = help.flags;
  protected readonly verb = 'enable';
}
