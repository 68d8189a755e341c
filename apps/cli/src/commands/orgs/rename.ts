import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class OrgsRename extends SvcCommand<typeof OrgsRename> {
  static override summary = 'Rename an organization (change its id).';
  static override examples = ['<%= config.bin %> orgs rename acme acme-corp'];
  static override args = {
    id: paramArg('org_update', 'id'),
    newId: paramArg('org_update', 'new_id', { name: 'new-id' }),
  };

  async run(): Promise<OperationResults['org_update']> {
    const result = await this.runner.run('org_update', { id: this.args.id, new_id: this.args.newId });
    this.human(`Renamed ${escapeTerminal(this.args.id)} to ${escapeTerminal(this.args.newId)}.`);
    return result;
  }
}
