import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deviceArg } from '../../flags';

export default class DeploymentsActive extends SvcCommand<typeof DeploymentsActive> {
  static override summary = "Print the id of a device's active deployment.";
  static override description = 'Only the id, so scripts can use it. A device without an active deployment is an error (exit 2).';
  static override examples = ['<%= config.bin %> deployments active edge-1', '<%= config.bin %> deployments clone edge-1 "$(<%= config.bin %> deployments active edge-1)"'];
  static override args = { device: deviceArg('device_deployment_active') };

  async run(): Promise<OperationResults['device_deployment_active']> {
    const result = await this.runner.run('device_deployment_active', { device: this.args.device });
    this.human(result.active_deployment_id);
    return result;
  }
}
