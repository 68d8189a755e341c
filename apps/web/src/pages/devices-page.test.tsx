import { render } from 'preact';
import { describe, expect, it, vi } from 'vitest';
import type { DeviceListItem } from '../api/types';
import { button, enter, fakeApi, useMountPoint } from '../test-support/fake-api';
import { DevicesPage } from './devices-page';

const device = (id: string, status: DeviceListItem['status'] = 'online'): DeviceListItem => ({ id, name: `${id}-name`, status, owner: 'user:me@example.com' });

/** Two pages of devices: without a cursor the first (and `next_cursor: 'c2'`), with 'c2' the second. */
const pages: Record<string, { items: DeviceListItem[]; next_cursor: string | null }> = {
  first: { items: [device('a'), device('b', 'offline'), { ...device('p', 'pending'), request_id: 'req_1' }], next_cursor: 'c2' },
  c2: { items: [device('c')], next_cursor: null },
};

describe('devices page: filters, cursor paging and selection, as GET /devices takes them', () => {
  const mounted = useMountPoint();

  function world() {
    return fakeApi({
      'GET /devices': (query: { cursor?: string }) => pages[query.cursor ?? 'first'],
      'POST /devices/status': (body: { devices: string[] }) => ({ results: body.devices.map((id) => ({ device: id, status: 'online', health: 'healthy', uptime: 90, last_seen: null })) }),
    });
  }
  const queries = (calls: { method: string; path: string; input: unknown }[]) => calls.filter((c) => c.method === 'GET' && c.path === '/devices').map((c) => c.input);
  const shown = () => [...mounted().querySelectorAll('tr[data-device]')].map((row) => row.getAttribute('data-device'));

  it('asks for the first page unfiltered, then each filter and page as the route takes them', async () => {
    const { api, calls } = world();
    render(<DevicesPage api={api} />, mounted());
    await vi.waitFor(() => expect(shown()).toEqual(['a', 'b', 'p']));
    expect(queries(calls)).toEqual([{ status: '', owner: '', name: '', cursor: undefined, limit: 25 }]);
    // Statuses are asked for approved devices only, in one batch.
    expect(calls.find((c) => c.path === '/devices/status')?.input).toEqual({ devices: ['a', 'b'] });

    button(mounted(), 'Next').click();
    await vi.waitFor(() => expect(shown()).toEqual(['c']));
    expect(button(mounted(), 'Next').disabled).toBe(true);
    button(mounted(), 'Previous').click();
    await vi.waitFor(() => expect(shown()).toEqual(['a', 'b', 'p']));

    // A filter is a draft until Apply, and applying it starts again at the first page.
    button(mounted(), 'Next').click();
    await vi.waitFor(() => expect(shown()).toEqual(['c']));
    await enter(mounted().querySelector('select[name=status]')!, 'offline');
    await enter(mounted().querySelector('input[name=name]')!, 'ki');
    await enter(mounted().querySelector('input[name=owner]')!, 'org_1');
    expect(queries(calls)).toHaveLength(4);
    button(mounted(), 'Apply').click();
    await vi.waitFor(() => expect(queries(calls)).toHaveLength(5));
    expect(queries(calls).map((q) => (q as { cursor?: string }).cursor)).toEqual([undefined, 'c2', undefined, 'c2', undefined]);
    expect(queries(calls)[4]).toEqual({ status: 'offline', owner: 'org_1', name: 'ki', cursor: undefined, limit: 25 });
  });

  it('selects the approved devices of the page, never a pending request', async () => {
    const { api } = world();
    render(<DevicesPage api={api} />, mounted());
    await vi.waitFor(() => expect(shown()).toEqual(['a', 'b', 'p']));
    expect(mounted().querySelector('tr[data-device="p"] input[type=checkbox]')).toBeNull();
    const all = [...mounted().querySelectorAll<HTMLInputElement>('input[type=checkbox]')].find((box) => box.parentElement?.textContent?.includes('Select all'))!;
    all.click();
    await vi.waitFor(() => expect([...mounted().querySelectorAll<HTMLInputElement>('tr[data-device] input[type=checkbox]')].map((box) => box.checked)).toEqual([true, true]));
    mounted().querySelector<HTMLInputElement>('input[aria-label="Select b-name"]')!.click();
    await vi.waitFor(() => expect(all.indeterminate).toBe(true));
  });
});
