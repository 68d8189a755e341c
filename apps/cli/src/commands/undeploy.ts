import { OperationResults } from '@svc/common';
import { SvcCommand } from '../base-command';
import { paramArg } from '../catalog-flags';
import { deploymentFlag, deviceArg } from '../flags';
import { escapeTerminal } from '../output/terminal-text';

export default class Undeploy extends SvcCommand<typeof Undeploy> {
  static override summary = 'Remove a job from a deployment; on the active one, the device stops it.';
  static override examples = ['<%= config.bin %> undeploy edge-1 worker', '<%= config.bin %> undeploy edge-1 worker --deployment 3f2a9c1e-… --json'];
  static override args = { device: deviceArg('device_undeploy'), job: paramArg('device_undeploy', 'job_id', { description: 'job id (svc deployments show lists them)' }) };
  static override flags = { deployment: deploymentFlag('device_undeploy') };

  async run(): Promise<OperationResults['device_undeploy']> {
    const result = await this.runner.run('device_undeploy', { device: this.args.device, job_id: this.args.job, deployment_id: this.flags.deployment });
    const from = this.flags.deployment ? `deployment ${escapeTerminal(this.flags.deployment)}` : 'the active deployment';
    this.human(`Removed job ${escapeTerminal(this.args.job)} from ${from} on ${escapeTerminal(this.args.device)}.`);
    return result;
  }
}
