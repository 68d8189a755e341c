import { updateCredentials } from '@svc/common';
import { SvcCommand } from '../base-command';

export default class Logout extends SvcCommand<typeof Logout> {
  static override summary = 'Remove your saved login from this machine.';
  static override description = 'Deletes credentials.OAuth2Token from ~/.config/svc/credentials.json and keeps everything else in the file (a device key of `svc runtime run` stays). The tokens are not revoked at the identity provider: they expire by themselves.';
  static override examples = ['<%= config.bin %> logout'];

  async run(): Promise<{ status: 'logged_out' | 'not_logged_in' }> {
    let had = false;
    updateCredentials(this.settings.credentialsPath, (doc) => {
      had = doc.credentials?.OAuth2Token !== undefined;
      if (doc.credentials) delete doc.credentials.OAuth2Token;
      if (doc.credentials && Object.keys(doc.credentials).length === 0) delete doc.credentials;
    });
    this.note(had ? 'Logged out.' : 'You were not logged in.');
    return { status: had ? 'logged_out' : 'not_logged_in' };
  }
}
