import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class AccessRemove extends SvcCommand<typeof AccessRemove> {
  static override summary = 'Stop sharing a device with a user or an organization.';
  static override examples = ['<%= config.bin %> access remove edge-1 bob@example.com'];
  static override args = { device: deviceArg('device_access_remove'), who: paramArg('device_access_remove', 'email_or_org_id', { description: 'an e-mail address or an organization id' }) };

  async run(): Promise<OperationResults['device_access_remove']> {
    const result = await this.runner.run('device_access_remove', { device: this.args.device, email_or_org_id: this.args.who });
    this.human(`${escapeTerminal(this.args.who)} no longer has access to ${escapeTerminal(this.args.device)}.`);
    return result;
  }
}
