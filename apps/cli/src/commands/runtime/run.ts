import { RUN_USAGE } from '@svc/runtime';
import { RuntimePassthrough } from '../../runtime-passthrough';

export default class RuntimeRun extends RuntimePassthrough {
  static override summary = "Register this machine as a device (once) and keep its tunnel to the server open.";
  static override description = RUN_USAGE;
  protected readonly verb = 'run';
}
