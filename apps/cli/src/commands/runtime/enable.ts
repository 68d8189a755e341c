import { SERVICE_USAGE } from '@svc/runtime';
import { RuntimePassthrough } from '../../runtime-passthrough';

export default class RuntimeEnable extends RuntimePassthrough {
  static override summary = "Install and start a systemd unit that runs `svc runtime run`, so the device survives reboots.";
  static override description = SERVICE_USAGE;
  protected readonly verb = 'enable';
}
