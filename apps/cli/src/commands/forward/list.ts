import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { renderTable } from '../../output/table';

export default class ForwardList extends SvcCommand<typeof ForwardList> {
  static override summary = 'List the background forward sessions of this user on this machine.';
  static override description = 'Sessions whose process is gone are dropped from the list.';
  static override examples = ['<%= config.bin %> forward list', '<%= config.bin %> forward list --json'];

  async run(): Promise<OperationResults['forward_list']> {
    const sessions = await this.runner.run('forward_list', {});
    if (sessions.length === 0) this.human('No forward sessions.');
    else
      this.human(
        renderTable(sessions, [
          { header: 'id', get: (s) => s.session_id },
          { header: 'device', get: (s) => s.device },
          { header: 'forwards', get: (s) => s.targets.join(', ') },
        ]),
      );
    return sessions;
  }
}
