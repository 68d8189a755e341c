import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class OrgsDelete extends SvcCommand<typeof OrgsDelete> {
  static override summary = 'Delete an organization.';
  static override examples = ['<%= config.bin %> orgs delete acme'];
  static override args = { id: paramArg('org_delete', 'id') };

  async run(): Promise<OperationResults['org_delete']> {
    const result = await this.runner.run('org_delete', { id: this.args.id });
    this.human(`Deleted organization ${escapeTerminal(this.args.id)}.`);
    return result;
  }
}
