/** Result shapes of the operations, exactly as the specification's tool table gives them. */
import type { ToolRole } from '../roles';

export type DeviceConnectionStatus = 'online' | 'offline';

export interface DeviceListItem {
  id: string;
  name: string;
  status: DeviceConnectionStatus | 'pending';
  owner: string;
  /** Present on pending registration requests only. */
  request_id?: string;
  device_id?: string;
  hostname?: string;
  platform?: string;
  requester?: string;
}

export interface StatusResult<S extends string = string> {
  status: S;
}

export interface DeviceStatusResult {
  status: DeviceConnectionStatus;
  health: string;
  uptime: number | null;
  last_seen: string | null;
}

export interface AuditEntry {
  timestamp: string;
  user: string;
  action: string;
  details: string;
}

export interface AuditLogsResult {
  logs: AuditEntry[];
}

export type BatchItem<R> = ({ device: string } & R) | { device: string; error: string };

export interface BatchResult<R> {
  results: BatchItem<R>[];
}

export type AccessEntry = ({ email: string } | { org_id: string }) & { role: ToolRole };

export interface OrganizationResult {
  id: string;
  owner: string;
  members: number;
}

export interface OrgMemberResult {
  email: string;
  role: ToolRole;
}

export interface OrgDeviceItem {
  id: string;
  name: string;
  status: DeviceConnectionStatus;
}

export interface RegistrationRequestResult {
  request_id: string;
}

export type RegistrationStatusResult =
  | { status: 'pending' }
  | { status: 'approved'; api_key: string; device_id: string }
  | { status: 'rejected' };
