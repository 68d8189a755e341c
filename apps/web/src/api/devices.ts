import type { ApiClient } from './client';
import type { BatchItem, DeviceCapabilities, DeviceListItem, DevicePage, DeviceState, DeviceStatus } from './types';

/** GET /devices's filters and paging, exactly as the route takes them. */
export interface DeviceQuery {
  status?: DeviceState | '';
  owner?: string;
  name?: string;
  cursor?: string;
  limit: number;
}

export function listDevices(api: ApiClient, query: DeviceQuery): Promise<DevicePage> {
  return api.get<DevicePage>('/devices', { ...query });
}

/** One status per device id (POST /devices/status takes up to 100); a device that failed maps to nothing. */
export async function statusOf(api: ApiClient, ids: string[]): Promise<Map<string, DeviceStatus>> {
  const found = new Map<string, DeviceStatus>();
  if (ids.length === 0) return found;
  const answer = await api.post<{ results: BatchItem<DeviceStatus>[] }>('/devices/status', { devices: ids });
  for (const item of answer.results) if (!('error' in item)) found.set(item.device, item);
  return found;
}

export const showDevice = (api: ApiClient, id: string) => api.get<DeviceListItem>(`/devices/${encodeURIComponent(id)}`);
export const deviceStatus = (api: ApiClient, id: string) => api.get<DeviceStatus>(`/devices/${encodeURIComponent(id)}/status`);
export const capabilitiesOn = (api: ApiClient, id: string) => api.get<DeviceCapabilities>(`/devices/${encodeURIComponent(id)}/capabilities`);
export const approve = (api: ApiClient, requestId: string) => api.post<unknown>('/devices/approve', { device: requestId });
export const reject = (api: ApiClient, requestId: string) => api.post<unknown>('/devices/reject', { device: requestId });

export interface ExecEvents {
  output(stream: 'stdout' | 'stderr', data: string): void;
  exit(code: number, timedOut: boolean): void;
  error(message: string, code: string): void;
}

/** POST /api/exec with NDJSON: output as the device produces it, then the exit code. */
export function runCommand(api: ApiClient, device: string, command: string[], events: ExecEvents, signal?: AbortSignal): Promise<void> {
  return api.stream('/api/exec', { device, command }, (line) => {
    if (typeof line.data === 'string') events.output(line.stream === 'stderr' ? 'stderr' : 'stdout', line.data);
    else if (typeof line.exit_code === 'number') events.exit(line.exit_code, line.timed_out === true);
    else if (typeof line.error === 'string') events.error(line.error, String(line.code ?? ''));
  }, signal);
}
