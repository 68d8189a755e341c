import type { ApiClient } from './client';
import type { BatchItem, DeviceStatus } from './types';

/** device_status for several devices at once: POST /devices/status with `devices`; a device that failed is an item with its error. */
export async function batchStatus(api: ApiClient, devices: string[]): Promise<BatchItem<DeviceStatus>[]> {
  const answer = await api.post<{ results: BatchItem<DeviceStatus>[] }>('/devices/status', { devices });
  return answer.results;
}

export interface BatchExecEvents {
  output(device: string, stream: 'stdout' | 'stderr', data: string): void;
  exit(device: string, code: number, timedOut: boolean): void;
  /** A device that failed (offline, refused, not found) or stopped with an error; `device` is absent for the whole run failing mid-way. */
  error(device: string | undefined, message: string, code: string): void;
}

/**
 * device_exec for several devices at once: POST /api/exec with `devices`, read as NDJSON. Every
 * line names its device; a device refused or offline is a `{device, error, code}` line inside the
 * 200 answer (the server decides per device).
 */
export function batchExec(api: ApiClient, devices: string[], command: string[], events: BatchExecEvents, signal?: AbortSignal): Promise<void> {
  return api.stream('/api/exec', { devices, command }, (line) => {
    const device = typeof line.device === 'string' ? line.device : undefined;
    if (typeof line.error === 'string') events.error(device, line.error, String(line.code ?? ''));
    else if (device === undefined) return;
    else if (typeof line.data === 'string') events.output(device, line.stream === 'stderr' ? 'stderr' : 'stdout', line.data);
    else if (typeof line.exit_code === 'number') events.exit(device, line.exit_code, line.timed_out === true);
  }, signal);
}
