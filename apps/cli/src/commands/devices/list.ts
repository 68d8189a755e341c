import { DeviceListItem, DeviceListPage } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { stringFlag } from '../../catalog-flags';
import { renderTable } from '../../output/table';
import { keyChange } from '../../sdk/registration-review';

const PAGE_SIZE = 500;

export default class DevicesList extends SvcCommand<typeof DevicesList> {
  static override summary = 'List your devices and the registrations waiting for approval.';
  static override description =
    'Pending registrations show their request id and key fingerprint: compare the fingerprint with what the device printed before you approve it. A request for a registered device id is marked "replaces the key of <device>": approving it cuts off the device now using that id. One whose key is not the key that device id was registered with is also marked "KEY CHANGED: was <fingerprint>, now <fingerprint>": another machine asking for the id, unless the device was reinstalled. Filters are applied by the server over the paged listing.';
  static override examples = ['<%= config.bin %> devices list', '<%= config.bin %> devices list --status pending', '<%= config.bin %> devices list --owner org:acme --name edge- --json'];
  static override flags = {
    status: stringFlag('devices_list', 'status'),
    owner: stringFlag('devices_list', 'owner', { description: 'only this owner: user:<email>, org:<id>, an e-mail or an organization id' }),
    name: stringFlag('devices_list', 'name', { description: 'only names starting with this' }),
  };

  async run(): Promise<DeviceListItem[]> {
    const filters = { status: this.flags.status, owner: this.flags.owner, name: this.flags.name };
    const items: DeviceListItem[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.client.call('devices_list', { ...filters, limit: PAGE_SIZE, cursor })) as unknown as DeviceListPage;
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    if (items.length === 0) this.human('No devices.');
    else
      this.human(
        renderTable(items, [
          { header: 'id', get: (d) => d.request_id ?? d.id },
          { header: 'name', get: (d) => d.name },
          { header: 'status', get: (d) => d.status },
          { header: 'owner', get: (d) => d.owner },
          { header: 'fingerprint', get: (d) => d.fingerprint ?? '' },
          ...(items.some((d) => d.replaces || d.key_mismatch) ? [{ header: 'note', get: note }] : []),
        ]),
      );
    return items;
  }
}

/** What approving a pending request would do besides registering it: a changed key first, then the replacement. */
function note(item: DeviceListItem): string {
  const replaces = item.replaces ? `replaces the key of ${item.replaces.device_id}, ${item.replaces.status}` : undefined;
  return [keyChange(item), replaces].filter(Boolean).join('; ');
}
