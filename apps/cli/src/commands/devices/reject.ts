import { Flags } from '@oclif/core';
import { DeviceStatusResult, OperationResults } from '@svc/common';
import { EXIT, SvcCommand } from '../../base-command';
import { deviceArg } from '../../flags';
import { confirmDestructive } from '../../output/confirm';
import { escapeTerminal } from '../../output/terminal-text';
import { isPendingRequest } from '../../sdk/registration-review';

export default class DevicesReject extends SvcCommand<typeof DevicesReject> {
  static override summary = 'Reject a pending registration, or remove an approved device.';
  static override description =
    'Removing a device revokes its key at once, closes its tunnel and deletes its deployments: svc asks first on a terminal, and needs --yes otherwise. Its audit log stays readable by its owner (svc devices logs <device id>). Rejecting a pending registration asks nothing.';
  static override examples = ['<%= config.bin %> devices reject req_3f1c9a2e…', '<%= config.bin %> devices reject edge-17 --yes'];
  static override args = { device: deviceArg('devices_reject') };
  static override flags = { yes: Flags.boolean({ char: 'y', description: 'remove an approved device without asking', default: false }) };

  async run(): Promise<OperationResults['devices_reject']> {
    const device = this.args.device;
    if (!(await isPendingRequest(this.client, device))) {
      // Not found (or not visible) fails here, before anything is asked.
      const { status } = (await this.client.call('device_status', { device })) as DeviceStatusResult;
      const warning = `Removing device ${escapeTerminal(device)} (${status}) revokes its key at once, closes its tunnel and deletes its deployments`;
      if (!(await confirmDestructive(warning, this.flags.yes))) {
        process.stderr.write('Not removed: nothing changed.\n');
        this.exit(EXIT.NEGATIVE);
      }
    }
    const result = await this.client.call('devices_reject', { device });
    this.human(`Rejected ${escapeTerminal(device)}.`);
    return result;
  }
}
