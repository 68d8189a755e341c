import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../../base-command';
import { deviceArg, orgArg } from '../../../flags';
import { escapeTerminal } from '../../../output/terminal-text';

export default class OrgsDevicesRemove extends SvcCommand<typeof OrgsDevicesRemove> {
  static override summary = 'Take a device out of an organization.';
  static override examples = ['<%= config.bin %> orgs devices remove acme edge-1'];
  static override args = { org: orgArg('org_devices_remove'), device: deviceArg('org_devices_remove') };

  async run(): Promise<OperationResults['org_devices_remove']> {
    const result = await this.runner.run('org_devices_remove', { org_id: this.args.org, device: this.args.device });
    this.human(`Took ${escapeTerminal(this.args.device)} out of ${escapeTerminal(this.args.org)}.`);
    return result;
  }
}
