import { Args } from '@oclif/core';
import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { escapeTerminal } from '../../output/terminal-text';

export default class DevicesApprove extends SvcCommand<typeof DevicesApprove> {
  static override summary = 'Approve a pending device registration.';
  static override description = 'Check first that the fingerprint in "svc devices list" matches the one the device printed. The device receives its key and connects.';
  static override examples = ['<%= config.bin %> devices approve 3f1c9a2e-…'];
  static override args = { device: Args.string({ description: 'registration request id (or the device id it asks for)', required: true }) };

  async run(): Promise<OperationResults['devices_approve']> {
    const result = await this.client.call('devices_approve', { device: this.args.device });
    this.human(`Approved ${escapeTerminal((result as { device_id?: string }).device_id ?? this.args.device)}.`);
    return result;
  }
}
