import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { renderTable } from '../../output/table';

export default class OrgsList extends SvcCommand<typeof OrgsList> {
  static override summary = 'Organizations you belong to (all of them for an admin).';
  static override examples = ['<%= config.bin %> orgs list', '<%= config.bin %> orgs list --json'];

  async run(): Promise<OperationResults['org_list']> {
    const orgs = await this.runner.run('org_list', {});
    if (orgs.length === 0) this.human('No organizations.');
    else this.human(renderTable(orgs, [{ header: 'id', get: (o) => o.id }, { header: 'owner', get: (o) => o.owner }, { header: 'members', get: (o) => o.members }]));
    return orgs;
  }
}
