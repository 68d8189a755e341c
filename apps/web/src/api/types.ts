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
