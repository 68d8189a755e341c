import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deploymentArg, deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class DeploymentsRm extends SvcCommand<typeof DeploymentsRm> {
  static override summary = 'Remove a deployment that is not active.';
  static override description = 'The active deployment is refused (exit 2): activate another one first.';
  static override examples = ['<%= config.bin %> deployments rm edge-1 3f2a9c1e-…'];
  static override args = { device: deviceArg('device_deployment_rm'), deployment: deploymentArg('device_deployment_rm') };

  async run(): Promise<OperationResults['device_deployment_rm']> {
    const result = await this.runner.run('device_deployment_rm', { device: this.args.device, deployment_id: this.args.deployment });
    this.human(`Removed deployment ${escapeTerminal(this.args.deployment)} from ${escapeTerminal(this.args.device)}.`);
    return result;
  }
}
