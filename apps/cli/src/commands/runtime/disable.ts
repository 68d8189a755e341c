import { SERVICE_USAGE } from '@svc/runtime';
import { RuntimePassthrough } from '../../runtime-passthrough';

export default class RuntimeDisable extends RuntimePassthrough {
  static override summary = "Stop and remove the systemd unit.";
  static override description = SERVICE_USAGE;
  protected readonly verb = 'disable';
}
