import { Errors, Flags, ux } from '@oclif/core';
import { CredentialsFileError, DomainError } from '@svc/common';
import { writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { deviceLogin, DeviceLoginPrompt } from '../auth/device-login';
import { resolveOAuthSettings } from '../sdk/identity-provider';
import { SvcCommand } from '../base-command';
import { LoginFailedError } from '../exit-codes';
import { cliConfigPath, readCliConfig } from '../config/cli-settings';
import { escapeTerminal } from '../output/terminal-text';
import { Account, currentAccount, describeAccount } from '../sdk/account';

export default class Login extends SvcCommand<typeof Login> {
  static override summary = 'Sign in with the OAuth device authorization grant.';
  static override description = `Shows a URL and a one-time code; confirm the code in any browser (this machine's is opened when there is one) and sign in. The tokens are saved in ~/.config/svc/credentials.json (mode 0600) and refreshed automatically. The identity provider, client id and audience come from the server (GET /auth/config) unless SVC_AUTH_DOMAIN, SVC_AUTH_CLIENT_ID or SVC_AUTH_AUDIENCE say otherwise.`;
  static override examples = ['<%= config.bin %> login', '<%= config.bin %> login --server https://svc.example.com', '<%= config.bin %> login --no-browser'];
  static override flags = {
    server: Flags.string({ description: 'Server URL to sign in to; remembered for later commands (SVC_SERVER_URL overrides it).' }),
    browser: Flags.boolean({ description: 'Open the verification page in a browser when one exists.', default: true, allowNo: true }),
  };

  async run(): Promise<{ status: 'logged_in'; server: string; expires_at: number; email?: string; admin?: boolean }> {
    const settings = this.settings;
    if (settings.serverUrl.protocol === 'http:') this.note(`Note: ${settings.serverUrl.origin} is plain HTTP, which svc allows only for a server on this machine.`);
    const oauth = await resolveOAuthSettings(settings, this.client.rest);
    const spinner = process.stderr.isTTY && !this.jsonEnabled();
    let token;
    try {
      token = await deviceLogin(oauth, {
        prompt: (prompt) => {
          this.showPrompt(prompt);
          if (spinner) ux.action.start('Waiting for the sign-in', undefined, { stdout: false });
        },
        openBrowser: this.flags.browser && !this.jsonEnabled(),
      });
    } finally {
      if (spinner) ux.action.stop();
    }
    this.client.session.save(token);
    if (this.flags.server !== undefined) this.rememberServer(settings.serverUrl.href);
    const account = await this.whoIsLoggedIn();
    this.note(account ? `Logged in as ${escapeTerminal(describeAccount(account))}.` : `Logged in to ${settings.serverUrl.origin}.`);
    return { status: 'logged_in', server: settings.serverUrl.origin, expires_at: token.expires_at, ...(account ? { email: account.email, admin: account.admin } : {}) };
  }

  /** Who the server takes the new session for; a refusal (an account waiting for approval) is said, not fatal. */
  private async whoIsLoggedIn(): Promise<Account | undefined> {
    try {
      return await currentAccount(this.client);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.note(`Signed in, but the server refuses this account for now: ${escapeTerminal(error.message)}`);
      return undefined;
    }
  }

  /**
   * Every failure of the sign-in is "Failed to auth: <reason>", exit 3 (docs/cli.md), the server's
   * unreachability included; a usage error (no code) and a bug in svc stay what they are.
   */
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    const usage = error instanceof Errors.ExitError || error instanceof Errors.CLIError;
    const signInFailure = !usage && (error instanceof DomainError || error instanceof CredentialsFileError || typeof (error as { code?: unknown }).code === 'string');
    return super.catch(signInFailure ? new LoginFailedError(error) : error);
  }

  /** The code goes to stderr, so `--json` output on stdout stays one document. */
  private showPrompt(prompt: DeviceLoginPrompt): void {
    const lines = [`To sign in, open ${prompt.verification_uri} and enter the code ${prompt.user_code}`];
    if (prompt.verification_uri_complete) lines.push(`(or open ${prompt.verification_uri_complete})`);
    lines.push(`The code expires in ${Math.round(prompt.expires_in / 60)} minutes.`);
    process.stderr.write(`${lines.join('\n')}\n`);
  }

  private rememberServer(url: string): void {
    const path = cliConfigPath(process.env);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ ...readCliConfig(process.env), server_url: url }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path);
  }
}
