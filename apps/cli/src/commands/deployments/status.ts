import { OperationResults } from '@svc/common';
import { EXIT, SvcCommand } from '../../base-command';
import { batchDeviceArg, batchTarget, deploymentFlag, devicesFlag } from '../../flags';
import { allRunning, batchStatusText, StatusItem, statusBlock } from '../../output/deployment-views';

export default class DeploymentsStatus extends SvcCommand<typeof DeploymentsStatus> {
  static override summary = "What devices report about a deployment: its state and each job's status, health, restarts and failure reason.";
  static override description = `The active deployment unless --deployment. "pending" means the device has not reported on it yet (offline, or just activated). Says when the device last reported, whether it is offline or its report stale (no report for 3 minutes; it reports every minute), and, after an automatic rollback, which deployment was rolled back, when and why.

Exit code: 0 when every deployment is running with all its jobs healthy (a one-shot job: completed), reported by a device that is online and not stale; 1 when one is not (deploying, degraded, failed, rolled back, pending, offline, stale), when the active deployment is one an automatic rollback went back to (until the next activation or deploy), or a device has none (in a batch), 2 when the command failed (3: not logged in).`;
  static override examples = [
    '<%= config.bin %> deployments status edge-1',
    '<%= config.bin %> deployments status edge-1 --deployment 3f2a9c1e-… --json',
    '<%= config.bin %> deployments status --devices edge-1,edge-2',
    'until <%= config.bin %> deployments status edge-1 >/dev/null; do sleep 2; done',
  ];
  static override args = { device: batchDeviceArg('device_deployment_status') };
  static override flags = { devices: devicesFlag('device_deployment_status'), deployment: deploymentFlag('device_deployment_status') };

  async run(): Promise<OperationResults['device_deployment_status']> {
    const answer = await this.runner.run('device_deployment_status', { ...batchTarget(this.args.device, this.flags.devices), deployment_id: this.flags.deployment });
    const items: StatusItem[] = 'results' in answer ? answer.results : [{ device: this.args.device!, ...answer }];
    this.human('results' in answer ? batchStatusText(items) : statusBlock(answer));
    if (!allRunning(items)) process.exitCode = EXIT.NEGATIVE;
    return answer;
  }
}
