import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class DevicesRename extends SvcCommand<typeof DevicesRename> {
  static override summary = 'Rename a device.';
  static override description =
    'The name is what "svc devices list" shows and what commands accept in place of the device id: at most 64 characters, no control characters, no white space at either end. Needs the admin role on the device (its owner has it). A runtime can ask for a name at registration: svc runtime run --name <name>.';
  static override examples = ['<%= config.bin %> devices rename vm-3f1c9a2e kitchen-display', '<%= config.bin %> devices rename kitchen-display "kitchen display" --json'];
  static override args = { device: deviceArg('device_rename'), name: paramArg('device_rename', 'name', { description: 'new name' }) };

  async run(): Promise<OperationResults['device_rename']> {
    const result = await this.client.call('device_rename', { device: this.args.device, name: this.args.name });
    this.human(`Renamed ${escapeTerminal(result.device_id)} to ${escapeTerminal(result.name)}.`);
    return result;
  }
}
