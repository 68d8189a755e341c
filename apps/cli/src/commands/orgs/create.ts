import { DomainError, ForbiddenError, OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg, stringFlag } from '../../catalog-flags';
import { escapeTerminal } from '../../output/terminal-text';

const NEEDS_ADMIN =
  'Creating an organization needs a server administrator, and you are not one ("svc whoami" shows it). Ask one to create it for you (naming you with --owner), or to make you one: add your e-mail to the server\'s ADMIN_EMAILS, or POST /users/<your e-mail>/admin with the X-Admin-Key header';

export default class OrgsCreate extends SvcCommand<typeof OrgsCreate> {
  static override summary = 'Create an organization.';
  static override description =
    'Needs a server administrator: a user in the server\'s ADMIN_EMAILS, or one made admin with POST /users/<email>/admin (X-Admin-Key). The owner given with --owner becomes its first admin member.';
  static override examples = ['<%= config.bin %> orgs create acme --owner alice@example.com'];
  static override args = { id: paramArg('org_create', 'id') };
  static override flags = { owner: stringFlag('org_create', 'email', { description: "owner's e-mail address" }) };

  async run(): Promise<OperationResults['org_create']> {
    const result = await this.runner.run('org_create', { id: this.args.id, email: this.flags.owner }).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'FORBIDDEN') throw new ForbiddenError(NEEDS_ADMIN);
      throw error;
    });
    this.human(`Created organization ${escapeTerminal(this.args.id)}.`);
    return result;
  }
}
