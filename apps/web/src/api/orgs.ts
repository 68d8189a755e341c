import type { ApiClient } from './client';
import type { OrgMember, Organization } from './types';

export const listOrgs = (api: ApiClient) => api.get<Organization[]>('/orgs');
export const listMembers = (api: ApiClient, orgId: string) => api.get<OrgMember[]>(`/orgs/${encodeURIComponent(orgId)}/members`);
