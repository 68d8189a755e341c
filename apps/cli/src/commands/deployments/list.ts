import { BatchItem, DeploymentSummary, OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { batchDeviceArg, batchTarget, devicesFlag } from '../../flags';
import { renderTable } from '../../output/table';

type Row = { device: string; deployment?: DeploymentSummary; error?: string };

export default class DeploymentsList extends SvcCommand<typeof DeploymentsList> {
  static override summary = 'List the deployments of devices, the active one marked.';
  static override examples = ['<%= config.bin %> deployments list edge-1', '<%= config.bin %> deployments list --devices edge-1,edge-2 --json'];
  static override args = { device: batchDeviceArg('device_deployment_list') };
  static override flags = { devices: devicesFlag('device_deployment_list') };

  async run(): Promise<OperationResults['device_deployment_list']> {
    const answer = await this.runner.run('device_deployment_list', batchTarget(this.args.device, this.flags.devices));
    const batch = 'results' in answer;
    const items: BatchItem<{ deployments: DeploymentSummary[] }>[] = batch ? answer.results : [{ device: this.args.device!, ...answer }];
    const rows = items.flatMap((item): Row[] => ('error' in item ? [{ device: item.device, error: item.error }] : item.deployments.map((deployment) => ({ device: item.device, deployment }))));
    if (rows.length === 0) {
      this.human('No deployments: svc deploy <device> <file> creates one.');
      return answer;
    }
    this.human(
      renderTable(rows, [
        ...(batch ? [{ header: 'device', get: (row: Row) => row.device }] : []),
        { header: 'id', get: (row) => row.deployment?.id ?? `error: ${row.error}` },
        { header: 'active', get: (row) => (row.deployment ? (row.deployment.active ? 'yes' : 'no') : '') },
        { header: 'name', get: (row) => (row.deployment ? (row.deployment.name ?? '-') : '') },
        { header: 'jobs', get: (row) => row.deployment?.jobs.map((job) => job.id) ?? '' },
        { header: 'updated', get: (row) => row.deployment?.updated_at ?? '' },
      ]),
    );
    return answer;
  }
}
