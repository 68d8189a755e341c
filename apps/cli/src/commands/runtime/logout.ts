import { LOGOUT_USAGE } from '@svc/runtime';
import { RuntimePassthrough } from '../../runtime-passthrough';

export default class RuntimeLogout extends RuntimePassthrough {
  static override summary = "Remove this device's credentials (its key and identity) from this machine.";
  static override description = LOGOUT_USAGE;
  protected readonly verb = 'logout';
}
