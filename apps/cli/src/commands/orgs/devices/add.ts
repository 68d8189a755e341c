import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../../base-command';
import { deviceArg, orgArg } from '../../../flags';
import { escapeTerminal } from '../../../output/terminal-text';

export default class OrgsDevicesAdd extends SvcCommand<typeof OrgsDevicesAdd> {
  static override summary = 'Move a device into an organization.';
  static override description = "The organization becomes the device's owner; its members get access by their role.";
  static override examples = ['<%= config.bin %> orgs devices add acme edge-1'];
  static override args = { org: orgArg('org_devices_add'), device: deviceArg('org_devices_add') };

  async run(): Promise<OperationResults['org_devices_add']> {
    const result = await this.runner.run('org_devices_add', { org_id: this.args.org, device: this.args.device });
    this.human(`Moved ${escapeTerminal(this.args.device)} into ${escapeTerminal(this.args.org)}.`);
    return result;
  }
}
