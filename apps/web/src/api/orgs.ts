import type { ApiClient } from './client';
import type { OrgDevice, OrgMember, Organization } from './types';

const of = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}`;

export const listOrgs = (api: ApiClient) => api.get<Organization[]>('/orgs');
export const listMembers = (api: ApiClient, orgId: string) => api.get<OrgMember[]>(`${of(orgId)}/members`);
export const addMember = (api: ApiClient, orgId: string, email: string, role: string) => api.post<unknown>(`${of(orgId)}/members`, { email, role });
export const removeMember = (api: ApiClient, orgId: string, email: string) => api.request<unknown>('DELETE', `${of(orgId)}/members/${encodeURIComponent(email)}`);
export const listOrgDevices = (api: ApiClient, orgId: string) => api.get<OrgDevice[]>(`${of(orgId)}/devices`);
export const addOrgDevice = (api: ApiClient, orgId: string, device: string) => api.post<unknown>(`${of(orgId)}/devices`, { device });
export const removeOrgDevice = (api: ApiClient, orgId: string, device: string) => api.request<unknown>('DELETE', `${of(orgId)}/devices/${encodeURIComponent(device)}`);
/** What AccessPolicy lets the caller do on the organization (GET /orgs/{org_id}/capabilities). */
export const orgCapabilities = (api: ApiClient, orgId: string) => api.get<{ org_id: string; capabilities: string[] }>(`${of(orgId)}/capabilities`);
