import { AccessEntry } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deviceArg } from '../../flags';
import { renderTable } from '../../output/table';

export default class AccessList extends SvcCommand<typeof AccessList> {
  static override summary = 'Who else may access a device, and with which role.';
  static override examples = ['<%= config.bin %> access list edge-1', '<%= config.bin %> access list edge-1 --json'];
  static override args = { device: deviceArg('device_access_list') };

  async run(): Promise<AccessEntry[]> {
    const entries = await this.runner.run('device_access_list', { device: this.args.device });
    if (entries.length === 0) this.human('Not shared with anyone.');
    else this.human(renderTable(entries, [{ header: 'who', get: (e) => ('email' in e ? e.email : `org:${e.org_id}`) }, { header: 'role', get: (e) => e.role }]));
    return entries;
  }
}
