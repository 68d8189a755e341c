import { LOGOUT_USAGE } from '@svc/runtime';
import { runtimeHelp } from '../../runtime-help';
import { RuntimePassthrough } from '../../runtime-passthrough';

const help = runtimeHelp('logout', LOGOUT_USAGE);

export default class RuntimeLogout extends RuntimePassthrough {
  static override summary = "Remove this device's credentials (its key and identity) from this machine.";
  static override usage = help.usage;
  static override description = help.description;
  static override flags = help.flags;
  protected readonly verb = 'logout';
}
