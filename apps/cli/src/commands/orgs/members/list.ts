import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../../base-command';
import { orgArg } from '../../../flags';
import { renderTable } from '../../../output/table';

export default class OrgsMembersList extends SvcCommand<typeof OrgsMembersList> {
  static override summary = 'Members of an organization and their roles.';
  static override examples = ['<%= config.bin %> orgs members list acme'];
  static override args = { org: orgArg('org_members_list') };

  async run(): Promise<OperationResults['org_members_list']> {
    const members = await this.runner.run('org_members_list', { org_id: this.args.org });
    this.human(renderTable(members, [{ header: 'email', get: (m) => m.email }, { header: 'role', get: (m) => m.role }]));
    return members;
  }
}
