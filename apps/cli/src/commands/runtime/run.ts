import { RUN_USAGE } from '@svc/runtime';
import { runtimeHelp } from '../../runtime-help';
import { RuntimePassthrough } from '../../runtime-passthrough';

const help = runtimeHelp('run', RUN_USAGE);

export default class RuntimeRun extends RuntimePassthrough {
  static override summary = "Register this machine as a device (once) and keep its tunnel to the server open.";
  static override usage = help.usage;
  static override description = help.description;
  static override flags = help.flags;
  protected readonly verb = 'run';
}
