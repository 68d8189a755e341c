import type { ApiClient } from './client';
import type { AccessEntry, AuditEntry } from './types';

const of = (device: string) => `/devices/${encodeURIComponent(device)}`;

export const listAccess = (api: ApiClient, device: string) => api.get<AccessEntry[]>(`${of(device)}/access`);
export const addAccess = (api: ApiClient, device: string, emailOrOrgId: string, role: string) => api.post<unknown>(`${of(device)}/access`, { email_or_org_id: emailOrOrgId, role });
export const removeAccess = (api: ApiClient, device: string, emailOrOrgId: string) => api.request<unknown>('DELETE', `${of(device)}/access/${encodeURIComponent(emailOrOrgId)}`);

/** GET …/audit-logs: newest first, `since` inclusive, `until` exclusive (ISO 8601). */
export const auditLogs = (api: ApiClient, device: string, range: { since?: string; until?: string; max: number }) =>
  api.get<{ logs: AuditEntry[] }>(`${of(device)}/audit-logs`, range);
