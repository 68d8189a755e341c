import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { activeFlag, deploymentArg, deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class DeploymentsClone extends SvcCommand<typeof DeploymentsClone> {
  static override summary = 'Copy a deployment (jobs, rollback policy, name) into a new one.';
  static override description = 'The copy is inactive unless --active: change it with svc deploy <device> <file> --deployment <new id>, then svc deployments activate.';
  static override examples = ['<%= config.bin %> deployments clone edge-1 3f2a9c1e-…', '<%= config.bin %> deployments clone edge-1 "$(<%= config.bin %> deployments active edge-1)" --json'];
  static override args = { device: deviceArg('device_deployment_clone'), deployment: deploymentArg('device_deployment_clone') };
  static override flags = { active: activeFlag('device_deployment_clone') };

  async run(): Promise<OperationResults['device_deployment_clone']> {
    const copy = await this.runner.run('device_deployment_clone', { device: this.args.device, deployment_id: this.args.deployment, active: this.flags.active });
    this.human(`Cloned deployment ${escapeTerminal(this.args.deployment)} as ${copy.id} on ${escapeTerminal(this.args.device)}${copy.active ? ' (active)' : ''}.`);
    if (!copy.active) this.note(`Change it with: ${this.config.bin} deploy ${escapeTerminal(this.args.device)} <file> --deployment ${copy.id}`);
    return copy;
  }
}
