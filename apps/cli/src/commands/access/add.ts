import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { deviceArg, roleFlag } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class AccessAdd extends SvcCommand<typeof AccessAdd> {
  static override summary = 'Share a device with a user (e-mail) or an organization (id).';
  static override description = 'Roles: viewer (see it), editor (exec, files, forwards, shell), admin (also share and remove it). Adding someone who already has access changes their role.';
  static override examples = ['<%= config.bin %> access add edge-1 bob@example.com --role editor', '<%= config.bin %> access add edge-1 acme --role viewer'];
  static override args = { device: deviceArg('device_access_add'), who: paramArg('device_access_add', 'email_or_org_id', { description: 'an e-mail address or an organization id' }) };
  static override flags = { role: roleFlag('device_access_add') };

  async run(): Promise<OperationResults['device_access_add']> {
    const result = await this.runner.run('device_access_add', { device: this.args.device, email_or_org_id: this.args.who, role: this.flags.role });
    this.human(`Shared ${escapeTerminal(this.args.device)} with ${escapeTerminal(this.args.who)} as ${this.flags.role}.`);
    return result;
  }
}
