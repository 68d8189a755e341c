import { Flags } from '@oclif/core';
import { OperationResults } from '@svc/common';
import { EXIT, SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { confirmDestructive } from '../../output/confirm';
import { escapeTerminal } from '../../output/terminal-text';
import { replacementWarning, replacingRequest } from '../../sdk/registration-review';

export default class DevicesApprove extends SvcCommand<typeof DevicesApprove> {
  static override summary = 'Approve a pending device registration.';
  static override description =
    'Check first that the fingerprint in "svc devices list" matches the one the device printed. The device receives its key and connects. A request for a device id that is already registered replaces that device\'s key and cuts the device using it off: svc asks first on a terminal, and needs --yes otherwise.';
  static override examples = ['<%= config.bin %> devices approve req_3f1c9a2e…', '<%= config.bin %> devices approve req_3f1c9a2e… --yes'];
  static override args = { device: paramArg('devices_approve', 'device', { description: 'registration request id (or the device id it asks for)' }) };
  static override flags = { yes: Flags.boolean({ char: 'y', description: 'confirm replacing the key of a registered device without asking', default: false }) };

  async run(): Promise<OperationResults['devices_approve']> {
    const replacing = await replacingRequest(this.client, this.args.device);
    if (replacing && !(await confirmDestructive(escapeTerminal(replacementWarning(replacing)), this.flags.yes))) {
      process.stderr.write('Not approved: nothing changed.\n');
      this.exit(EXIT.NEGATIVE);
    }
    const result = await this.client.call('devices_approve', { device: this.args.device });
    this.human(`Approved ${escapeTerminal((result as { device_id?: string }).device_id ?? this.args.device)}.`);
    return result;
  }
}
