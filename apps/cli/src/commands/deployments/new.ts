import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { activeFlag, deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class DeploymentsNew extends SvcCommand<typeof DeploymentsNew> {
  static override summary = 'Create an empty deployment on a device.';
  static override description = 'It is inactive unless --active: fill it with svc deploy <device> <file> --deployment <id>, then svc deployments activate. Activating an empty deployment stops every job of the device.';
  static override examples = ['<%= config.bin %> deployments new edge-1', '<%= config.bin %> deployments new edge-1 --active --json'];
  static override args = { device: deviceArg('device_deployment_new') };
  static override flags = { active: activeFlag('device_deployment_new') };

  async run(): Promise<OperationResults['device_deployment_new']> {
    const deployment = await this.runner.run('device_deployment_new', { device: this.args.device, active: this.flags.active });
    this.human(`Created deployment ${deployment.id} on ${escapeTerminal(this.args.device)}${deployment.active ? ' (active)' : ''}.`);
    if (!deployment.active) this.note(`Add jobs with: ${this.config.bin} deploy ${escapeTerminal(this.args.device)} <file> --deployment ${deployment.id}`);
    return deployment;
  }
}
