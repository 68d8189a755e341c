import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../../base-command';
import { paramArg } from '../../../catalog-flags';
import { orgArg, roleFlag } from '../../../flags';
import { escapeTerminal } from '../../../output/terminal-text';

export default class OrgsMembersAdd extends SvcCommand<typeof OrgsMembersAdd> {
  static override summary = "Add a member to an organization, or change a member's role.";
  static override examples = ['<%= config.bin %> orgs members add acme bob@example.com --role editor'];
  static override args = { org: orgArg('org_members_add'), email: paramArg('org_members_add', 'email', { description: "member's e-mail address" }) };
  static override flags = { role: roleFlag('org_members_add') };

  async run(): Promise<OperationResults['org_members_add']> {
    const result = await this.runner.run('org_members_add', { org_id: this.args.org, email: this.args.email, role: this.flags.role });
    this.human(`${escapeTerminal(this.args.email)} is now ${this.flags.role} of ${escapeTerminal(this.args.org)}.`);
    return result;
  }
}
