import type { ApiClient } from './client';
import type { UserAccount } from './types';

/** What AccessPolicy lets the caller do on the server (GET /me/capabilities): `server:manage-users` for administrators. */
export const serverCapabilities = (api: ApiClient) => api.get<{ capabilities: string[] }>('/me/capabilities');
export const usersAwaitingApproval = (api: ApiClient) => api.get<UserAccount[]>('/users', { active: 'false' });
export const approveUser = (api: ApiClient, email: string) => api.post<UserAccount>(`/users/${encodeURIComponent(email)}/approve`, {});
