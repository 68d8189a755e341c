import { Args, Flags } from '@oclif/core';
import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { escapeTerminal } from '../../output/terminal-text';

export default class OrgsCreate extends SvcCommand<typeof OrgsCreate> {
  static override summary = 'Create an organization.';
  static override description = 'Needs admin rights (ADMIN_EMAILS on the server). The owner becomes its first admin member.';
  static override examples = ['<%= config.bin %> orgs create acme --owner alice@example.com'];
  static override args = { id: Args.string({ description: 'organization id', required: true }) };
  static override flags = { owner: Flags.string({ description: "owner's e-mail address", required: true }) };

  async run(): Promise<OperationResults['org_create']> {
    const result = await this.runner.run('org_create', { id: this.args.id, email: this.flags.owner });
    this.human(`Created organization ${escapeTerminal(this.args.id)}.`);
    return result;
  }
}
