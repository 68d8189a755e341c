/**
 * The answers the dashboard reads, as the server documents them (GET /openapi.json). Kept here
 * rather than imported from libs/common so the browser bundle carries no server-side code.
 */
export type DeviceState = 'online' | 'offline' | 'pending';

export interface DeviceListItem {
  id: string;
  name: string;
  status: DeviceState;
  owner: string;
  /** Pending registration requests only. */
  request_id?: string;
  device_id?: string;
  hostname?: string;
  platform?: string;
  requester?: string;
  fingerprint?: string;
  source_address?: string;
  key_mismatch?: boolean;
  registered_fingerprint?: string | null;
  replaces?: { device_id: string; name: string; status: 'online' | 'offline' };
}

export interface DevicePage {
  items: DeviceListItem[];
  next_cursor: string | null;
}

export interface DeviceStatus {
  status: 'online' | 'offline';
  health: string;
  uptime: number | null;
  last_seen: string | null;
  carrier?: 'tcp' | 'quic';
  carrier_note?: string;
}

export type BatchItem<R> = (R & { device: string }) | { device: string; error: string; code: string };

export interface DeviceCapabilities {
  device_id: string;
  role: 'admin' | 'editor' | 'viewer';
  owner: boolean;
  capabilities: string[];
}

export interface Organization {
  id: string;
  owner: string;
  members: number;
}

export interface OrgMember {
  email: string;
  role: string;
}

export interface DirectoryEntry {
  name: string;
  is_dir: boolean;
}

export interface AccessEntry {
  email?: string;
  org_id?: string;
  role: string;
}

export interface AuditEntry {
  timestamp: string;
  user: string;
  action: string;
  details: string;
}

export interface RollbackPolicy {
  on_health_failure: 'never' | 'any' | 'all' | { consecutive: number };
  stabilization_period_secs: number;
}

export interface DeploymentSummary {
  id: string;
  active: boolean;
  name?: string;
  jobs: { id: string; type: string; enabled: boolean }[];
  rollback?: RollbackPolicy;
  created_at: string;
  updated_at: string;
}

export interface JobStatus {
  id: string;
  status: string;
  health: string;
  restarts?: number;
  exit_code?: number | null;
  reason?: string;
}

export interface DeploymentStatus {
  deployment_id: string;
  status: string;
  jobs: JobStatus[];
  rollback?: { reason: string; to_deployment_id: string | null };
  reported_at: string | null;
  online: boolean;
  stale: boolean;
  rolled_back_from?: { deployment_id: string; reason: string; at: string };
}

export interface OrgDevice {
  id: string;
  name: string;
  status: 'online' | 'offline';
}

export interface UserAccount {
  email: string;
  active: boolean;
  admin: boolean;
  created_at: string;
  approved_at: string | null;
}
