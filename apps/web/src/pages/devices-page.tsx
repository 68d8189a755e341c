import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { DeviceQuery, listDevices, statusOf } from '../api/devices';
import type { DeviceListItem, DeviceState, DeviceStatus } from '../api/types';
import { Empty, ErrorBox, Loading, StatusBadge } from '../components/feedback';
import { useLoad } from '../components/use-load';
import { formatLastSeen, formatUptime } from '../format';
import { deviceHref } from '../router';
import { useLiveDeviceRows } from './devices-live';
import { BatchActions } from './batch-actions';
import { Selection, useSelection } from './device-selection';

const PAGE_SIZE = 25;

interface Filters {
  status: DeviceState | '';
  owner: string;
  name: string;
}

interface Rows {
  items: DeviceListItem[];
  next: string | null;
  statuses: Map<string, DeviceStatus>;
}

async function loadRows(api: ApiClient, query: DeviceQuery): Promise<Rows> {
  const page = await listDevices(api, query);
  const ids = page.items.filter((d) => d.status !== 'pending').map((d) => d.id);
  return { items: page.items, next: page.next_cursor, statuses: await statusOf(api, ids) };
}

/** Devices with GET /devices's filters (status, owner, name prefix) and its cursor paging. */
export function DevicesPage({ api }: { api: ApiClient }) {
  const [filters, setFilters] = useState<Filters>({ status: '', owner: '', name: '' });
  const [draft, setDraft] = useState<Filters>(filters);
  // Cursors of the pages before the current one, so "Previous" can go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const query: DeviceQuery = { ...filters, cursor, limit: PAGE_SIZE };
  const live = useLiveDeviceRows(() => rows.reload(), filters.status !== '');
  const rows = useLoad(() => {
    live.loading();
    return loadRows(api, query);
  }, JSON.stringify(query));

  const apply = (event: Event) => {
    event.preventDefault();
    setFilters(draft);
    setCursors([undefined]);
  };
  const filtered = filters.status !== '' || filters.owner !== '' || filters.name !== '';
  const shown = rows.data ? live.apply(rows.data) : null;
  // Approved devices only: a pending request has no status to ask nor a command to run.
  const selectable = shown?.items.filter((d) => d.status !== 'pending') ?? [];
  const selection = useSelection(selectable.map((d) => d.id));

  return (
    <section aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter devices">
        <label>
          Status
          <select name="status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value as Filters['status'] })}>
            <option value="">any</option>
            <option value="online">online</option>
            <option value="offline">offline</option>
            <option value="pending">pending</option>
          </select>
        </label>
        <label>
          Owner
          <input name="owner" placeholder="user:me@example.com or org id" value={draft.owner} onInput={(e) => setDraft({ ...draft, owner: e.currentTarget.value })} />
        </label>
        <label>
          Name starts with
          <input name="name" value={draft.name} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
        </label>
        <button type="submit">Apply</button>
        <button type="button" class="secondary" onClick={rows.reload}>
          Refresh
        </button>
      </form>
      {rows.error ? <ErrorBox error={rows.error} onRetry={rows.reload} /> : null}
      {!rows.data && rows.loading && <Loading what="devices" />}
      {rows.data && rows.data.items.length === 0 && (
        <Empty title={filtered ? 'No device matches these filters.' : 'No devices yet.'}>
          {filtered ? 'Clear a filter to see more.' : 'Run `svc runtime run` on a device, then approve it under Pending.'}
        </Empty>
      )}
      {shown && selectable.length > 0 && (
        <label class="select-all">
          <input type="checkbox" checked={selection.all} indeterminate={selection.some && !selection.all} onChange={(e) => selection.setAll(e.currentTarget.checked)} />
          Select all devices on this page
        </label>
      )}
      {shown && shown.items.length > 0 && <DeviceTable rows={shown} selection={selection} />}
      <nav class="pager" aria-label="Pages">
        <button type="button" class="secondary" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" class="secondary" disabled={!rows.data?.next} onClick={() => setCursors([...cursors, rows.data!.next!])}>
          Next
        </button>
      </nav>
      {selectable.length > 0 && <BatchActions api={api} devices={selection.ids} names={new Map(selectable.map((d) => [d.id, d.name]))} />}
    </section>
  );
}

function DeviceTable({ rows, selection }: { rows: Rows; selection: Selection }) {
  return (
    <div class="table-wrap">
      <table class="devices">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Name</th>
            <th scope="col">Owner</th>
            <th scope="col">Last seen</th>
            <th scope="col">Uptime</th>
            <th scope="col">Select</th>
          </tr>
        </thead>
        <tbody>
          {rows.items.map((device) => {
            const status = rows.statuses.get(device.id);
            return (
              <tr key={device.request_id ?? device.id} data-device={device.id}>
                <td data-label="Status">
                  <StatusBadge status={device.status} />
                </td>
                <td data-label="Name">
                  {device.status === 'pending' ? (
                    <a href="#/pending">{device.name} (review)</a>
                  ) : (
                    <a href={deviceHref(device.id)}>{device.name}</a>
                  )}
                </td>
                <td data-label="Owner">{device.owner}</td>
                <td data-label="Last seen">{device.status === 'pending' ? '—' : formatLastSeen(status?.last_seen)}</td>
                <td data-label="Uptime">{formatUptime(status?.status === 'online' ? status.uptime : null)}</td>
                <td data-label="Select">
                  {device.status !== 'pending' && (
                    <input type="checkbox" aria-label={`Select ${device.name}`} checked={selection.has(device.id)} onChange={(e) => selection.toggle(device.id, e.currentTarget.checked)} />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
