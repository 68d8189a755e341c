import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deploymentFlag, deviceArg } from '../../flags';
import { deploymentSummary } from '../../output/deployment-views';

export default class DeploymentsShow extends SvcCommand<typeof DeploymentsShow> {
  static override summary = 'Show a deployment: its jobs, their steps, probes and restart policies.';
  static override description = 'A summary for people; --json prints the whole deployment, every job field included (docs/runspec.md).';
  static override examples = ['<%= config.bin %> deployments show edge-1', '<%= config.bin %> deployments show edge-1 --deployment 3f2a9c1e-… --json'];
  static override args = { device: deviceArg('device_deployment_show') };
  static override flags = { deployment: deploymentFlag('device_deployment_show') };

  async run(): Promise<OperationResults['device_deployment_show']> {
    const deployment = await this.runner.run('device_deployment_show', { device: this.args.device, deployment_id: this.flags.deployment });
    this.human(deploymentSummary(this.args.device, deployment));
    return deployment;
  }
}
