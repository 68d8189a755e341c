import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';

export default class ForwardStop extends SvcCommand<typeof ForwardStop> {
  static override summary = 'Stop a background forward session.';
  static override description = 'Closes its listeners and the connections still open. An unknown id fails with exit 2.';
  static override examples = ['<%= config.bin %> forward stop fwd-3a9c1e0b52d4', '<%= config.bin %> forward list --json | jq -r ".[].session_id" | xargs -n1 <%= config.bin %> forward stop'];
  static override args = { session: paramArg('forward_stop', 'session_id', { description: 'session id (svc forward list)' }) };

  async run(): Promise<OperationResults['forward_stop']> {
    const stopped = await this.runner.run('forward_stop', { session_id: this.args.session });
    this.human(`Stopped ${stopped.session_id}.`);
    return stopped;
  }
}
