import { errorFromFrame } from '@svc/common/error-answer';
import type { ApiClient } from './client';
import type { BatchItem, DeploymentStatus, DeploymentSummary } from './types';

const of = (device: string) => `/devices/${encodeURIComponent(device)}/deployments`;

/** The answer of a batch route for one device: its result, or its error (`{error, code}`) thrown with its code. */
function single<R>(items: BatchItem<R>[]): R {
  const [item] = items;
  if ('error' in item) throw errorFromFrame({ code: item.code, message: item.error }, 'The device did not answer');
  return item;
}

export async function listDeployments(api: ApiClient, device: string): Promise<DeploymentSummary[]> {
  const answer = await api.post<{ results: BatchItem<{ deployments: DeploymentSummary[] }>[] }>('/devices/deployments/list', { devices: [device] });
  return single(answer.results).deployments;
}

export async function deploymentStatus(api: ApiClient, device: string, deploymentId: string): Promise<DeploymentStatus> {
  const answer = await api.post<{ results: BatchItem<DeploymentStatus>[] }>('/devices/deployments/status', { devices: [device], deployment_id: deploymentId });
  return single(answer.results);
}

export const activateDeployment = (api: ApiClient, device: string, id: string) => api.post<unknown>(`${of(device)}/${encodeURIComponent(id)}/activate`, {});
export const cloneDeployment = (api: ApiClient, device: string, id: string) => api.post<DeploymentSummary>(`${of(device)}/${encodeURIComponent(id)}/clone`, {});
export const removeDeployment = (api: ApiClient, device: string, id: string) => api.request<unknown>('DELETE', `${of(device)}/${encodeURIComponent(id)}`);

/** POST …/deployments/jobs with a DeployRequest (docs/runspec.md), as `svc deploy` sends it. */
export const deploy = (api: ApiClient, device: string, request: unknown) => api.post<{ status: string; deployment_id: string }>(`${of(device)}/jobs`, request);

/** A job's log as text; with `follow` the answer stays open until `signal` aborts it (as `svc deploy logs --follow`). */
export function jobLogs(api: ApiClient, device: string, job: string, follow: boolean, onText: (text: string) => void, signal?: AbortSignal): Promise<void> {
  const query = new URLSearchParams({ follow: String(follow), tail: '100' });
  return api.readText(`${of(device)}/jobs/${encodeURIComponent(job)}/logs?${query}`, onText, signal);
}
