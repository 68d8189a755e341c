import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deploymentArg, deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

export default class DeploymentsActivate extends SvcCommand<typeof DeploymentsActivate> {
  static override summary = 'Make a deployment the active one: the device stops the old jobs and starts its jobs.';
  static override description = 'With a rollback policy the device goes back to the previous deployment when the new jobs do not get healthy in time; svc deployments status says why.';
  static override examples = ['<%= config.bin %> deployments activate edge-1 3f2a9c1e-…', '<%= config.bin %> deployments activate edge-1 3f2a9c1e-… && <%= config.bin %> deployments status edge-1'];
  static override args = { device: deviceArg('device_deployment_activate'), deployment: deploymentArg('device_deployment_activate') };

  async run(): Promise<OperationResults['device_deployment_activate']> {
    const result = await this.runner.run('device_deployment_activate', { device: this.args.device, deployment_id: this.args.deployment });
    this.human(`Activated deployment ${escapeTerminal(this.args.deployment)} on ${escapeTerminal(this.args.device)}.`);
    return result;
  }
}
