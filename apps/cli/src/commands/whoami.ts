import { SvcCommand } from '../base-command';
import { escapeTerminal } from '../output/terminal-text';
import { Account, currentAccount } from '../sdk/account';

export default class Whoami extends SvcCommand<typeof Whoami> {
  static override summary = 'Show who you are signed in as, on which server, and until when.';
  static override description = 'Asks the server (GET /me) with your saved session: your e-mail, whether you are a server administrator, your organizations and roles, and when the current access token expires (svc refreshes it by itself). Exit code 3 when you are not signed in.';
  static override examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --json'];

  async run(): Promise<Account> {
    const account = await currentAccount(this.client);
    const organizations = account.organizations.map((o) => `${o.org_id} (${o.role})`).join(', ') || 'none';
    this.human(
      [
        `User:          ${escapeTerminal(account.email)}`,
        `Server:        ${account.server}`,
        `Server admin:  ${account.admin ? 'yes' : 'no'}`,
        `Organizations: ${escapeTerminal(organizations)}`,
        `Token expires: ${account.token_expires_at ?? 'unknown'} (refreshed automatically)`,
      ].join('\n'),
    );
    return account;
  }
}
