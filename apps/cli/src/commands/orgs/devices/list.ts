import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../../base-command';
import { orgArg } from '../../../flags';
import { renderTable } from '../../../output/table';

export default class OrgsDevicesList extends SvcCommand<typeof OrgsDevicesList> {
  static override summary = 'Devices of an organization.';
  static override examples = ['<%= config.bin %> orgs devices list acme'];
  static override args = { org: orgArg('org_devices_list') };

  async run(): Promise<OperationResults['org_devices_list']> {
    const devices = await this.runner.run('org_devices_list', { org_id: this.args.org });
    if (devices.length === 0) this.human('No devices.');
    else this.human(renderTable(devices, [{ header: 'id', get: (d) => d.id }, { header: 'name', get: (d) => d.name }, { header: 'status', get: (d) => d.status }]));
    return devices;
  }
}
