import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class DevicesReject extends SvcCommand<typeof DevicesReject> {
  static override summary = 'Reject a pending registration, or remove an approved device.';
  static override description = 'Removing a device revokes its key at once and closes its tunnel.';
  static override examples = ['<%= config.bin %> devices reject edge-17', '<%= config.bin %> devices reject 3f1c9a2e-…'];
  static override args = { device: deviceArg };

  async run(): Promise<OperationResults['devices_reject']> {
    const result = await this.client.call('devices_reject', { device: this.args.device });
    this.human(`Rejected ${escapeTerminal(this.args.device)}.`);
    return result;
  }
}
