import { render } from 'preact';
import { describe, expect, it, vi } from 'vitest';
import type { DeviceListItem } from '../api/types';
import { button, fakeApi, useMountPoint } from '../test-support/fake-api';
import { PendingPage } from './pending-page';

const request = (over: Partial<DeviceListItem>): DeviceListItem => ({
  id: 'kitchen-pi',
  name: 'kitchen-pi',
  status: 'pending',
  owner: 'user:me@example.com',
  request_id: 'req_1',
  device_id: 'kitchen-pi',
  hostname: 'kitchen-pi',
  platform: 'linux/arm64',
  requester: 'me@example.com',
  fingerprint: 'ABCD-EFGH-IJKL-MNOP',
  source_address: '192.0.2.7',
  ...over,
});

describe('pending page: the fingerprint to compare, the key-change warning, approval after confirmation', () => {
  const mounted = useMountPoint();

  it('shows the fingerprint, and asks again with it before approving', async () => {
    const { api, calls } = fakeApi({ 'GET /devices': () => ({ items: [request({})], next_cursor: null }), 'POST /devices/approve': () => ({}) });
    render(<PendingPage api={api} />, mounted());
    await vi.waitFor(() => expect(mounted().querySelector('[data-request="req_1"] .fingerprint')?.textContent).toBe('ABCD-EFGH-IJKL-MNOP'));
    expect(calls[0]).toEqual({ method: 'GET', path: '/devices', input: { status: 'pending', limit: 100, cursor: undefined } });
    expect(mounted().querySelector('[role=note]')).toBeNull();

    button(mounted(), 'Approve…').click();
    await vi.waitFor(() => expect(mounted().querySelector('[aria-label="Confirm approval"] .fingerprint')?.textContent).toBe('ABCD-EFGH-IJKL-MNOP'));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    button(mounted(), 'Yes, approve').click();
    await vi.waitFor(() => expect(mounted().querySelector('[role=status]')?.textContent).toBe('Approved kitchen-pi.'));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([{ method: 'POST', path: '/devices/approve', input: { device: 'req_1' } }]);
  });

  it('gives the confirmation the keyboard focus each time it shows (Enter approves)', async () => {
    const { api } = fakeApi({ 'GET /devices': () => ({ items: [request({})], next_cursor: null }) });
    render(<PendingPage api={api} />, mounted());
    await vi.waitFor(() => button(mounted(), 'Approve…'));
    for (let round = 1; round <= 2; round++) {
      button(mounted(), 'Approve…').click();
      await vi.waitFor(() => expect({ round, focused: document.activeElement?.textContent?.trim() }).toEqual({ round, focused: 'Yes, approve' }));
      button(mounted(), 'Cancel').click();
      await vi.waitFor(() => button(mounted(), 'Approve…'));
    }
  });

  it('warns when the device id is registered with another key, naming both fingerprints', async () => {
    const changed = request({ key_mismatch: true, registered_fingerprint: 'QRST-UVWX-YZ23-4567' });
    const { api } = fakeApi({ 'GET /devices': () => ({ items: [changed], next_cursor: null }) });
    render(<PendingPage api={api} />, mounted());
    await vi.waitFor(() => expect(mounted().querySelector('[role=note]')?.textContent).toBe('Key change: device kitchen-pi is registered with QRST-UVWX-YZ23-4567. Approving gives it this new key; only its owner may.'));
    expect(mounted().querySelector('[data-request="req_1"] .fingerprint')?.textContent).toBe('ABCD-EFGH-IJKL-MNOP');
  });
});
