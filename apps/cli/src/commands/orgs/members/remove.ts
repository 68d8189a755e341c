import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../../base-command';
import { paramArg } from '../../../catalog-flags';
import { orgArg } from '../../../flags';
import { escapeTerminal } from '../../../output/terminal-text';

export default class OrgsMembersRemove extends SvcCommand<typeof OrgsMembersRemove> {
  static override summary = 'Remove a member from an organization.';
  static override examples = ['<%= config.bin %> orgs members remove acme bob@example.com'];
  static override args = { org: orgArg('org_members_remove'), email: paramArg('org_members_remove', 'email', { description: "member's e-mail address" }) };

  async run(): Promise<OperationResults['org_members_remove']> {
    const result = await this.runner.run('org_members_remove', { org_id: this.args.org, email: this.args.email });
    this.human(`Removed ${escapeTerminal(this.args.email)} from ${escapeTerminal(this.args.org)}.`);
    return result;
  }
}
