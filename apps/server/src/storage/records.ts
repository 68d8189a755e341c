/** The persisted records and their collections: the single schema both adapters build from. */
import type { OrgRole } from '@svc/common';
import { defineCollection } from './storage.port';

export interface UserRecord {
  id: string; // the normalized e-mail
  subject: string | null; // `sub` of the first token seen
  active: boolean;
  /** Granted through the API; addresses in ADMIN_EMAILS are admins regardless. */
  admin: boolean;
  createdAt: Date;
  approvedAt: Date | null;
  approvedBy: string | null;
}

export const USERS = defineCollection<UserRecord>({
  name: 'users',
  fields: { subject: 'string', active: 'boolean', admin: 'boolean', createdAt: 'date', approvedAt: 'date', approvedBy: 'string' },
  indexes: [['active']],
  conflictMessage: 'User already exists',
});

export interface OrgRecord {
  id: string;
  owner: string;
  createdAt: Date;
}

export const ORGS = defineCollection<OrgRecord>({
  name: 'orgs',
  fields: { owner: 'string', createdAt: 'date' },
  conflictMessage: 'Organization already exists',
});

export interface MembershipRecord {
  id: string;
  orgId: string;
  email: string;
  role: OrgRole;
  createdAt: Date;
}

export const MEMBERSHIPS = defineCollection<MembershipRecord>({
  name: 'memberships',
  fields: { orgId: 'string', email: 'string', role: 'string', createdAt: 'date' },
  unique: [['orgId', 'email']],
  indexes: [['email']],
  conflictMessage: 'Already a member of this organization',
});

export interface DeviceSystemInfo {
  hostname: string;
  platform: string;
  architecture: string;
  os_version: string;
  [extra: string]: string;
}

export interface DeviceShare {
  scope: string;
  role: OrgRole;
}

export interface DeviceRecord {
  id: string;
  name: string;
  ownerScope: string;
  /** Derived from `shares`; kept as a flat array so storage can filter and index it. */
  allowedScopes: string[];
  shares: DeviceShare[];
  info: DeviceSystemInfo;
  apiKeyHash: string;
  createdAt: Date;
  approvedBy: string;
  lastSeen: Date | null;
  /**
   * Where this device's audit history starts: its registration request, or the removal of an
   * earlier device with the same id, whichever is later. Older entries belong to someone else.
   */
  historySince: Date;
}

export const DEVICES = defineCollection<DeviceRecord>({
  name: 'devices',
  fields: {
    name: 'string',
    ownerScope: 'string',
    allowedScopes: 'string[]',
    shares: 'json',
    info: 'json',
    apiKeyHash: 'string',
    createdAt: 'date',
    approvedBy: 'string',
    lastSeen: 'date',
    historySince: 'date',
  },
  unique: [['apiKeyHash']],
  indexes: [['ownerScope'], ['allowedScopes'], ['name']],
  conflictMessage: 'Device already registered',
});

export type RegistrationStatus = 'pending' | 'approved' | 'rejected';

export interface RegistrationRecord {
  id: string; // the request_id
  deviceId: string;
  ownerScope: string;
  info: DeviceSystemInfo;
  sourceAddress: string;
  status: RegistrationStatus;
  createdAt: Date;
  expiresAt: Date;
  /** The minted API key, encrypted, kept only until the runtime's first successful poll. */
  sealedApiKey: string | null;
  delivered: boolean;
  decidedBy: string | null;
}

export const REGISTRATIONS = defineCollection<RegistrationRecord>({
  name: 'registrations',
  fields: {
    deviceId: 'string',
    ownerScope: 'string',
    info: 'json',
    sourceAddress: 'string',
    status: 'string',
    createdAt: 'date',
    expiresAt: 'date',
    sealedApiKey: 'string',
    delivered: 'boolean',
    decidedBy: 'string',
  },
  indexes: [['deviceId'], ['ownerScope', 'status']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Registration request already exists',
});

export interface AuditRecord {
  id: string;
  timestamp: Date;
  user: string;
  action: string;
  deviceId: string | null;
  orgId: string | null;
  details: string;
  expiresAt: Date;
}

export const AUDIT = defineCollection<AuditRecord>({
  name: 'audit',
  fields: { timestamp: 'date', user: 'string', action: 'string', deviceId: 'string', orgId: 'string', details: 'string', expiresAt: 'date' },
  indexes: [['deviceId', 'timestamp'], ['orgId', 'timestamp']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Audit entry already exists',
});

/** Deployment and job reports sent by runtimes; kept REPORT_RETENTION_DAYS. */
export interface ReportRecord {
  id: string;
  deviceId: string;
  kind: string;
  createdAt: Date;
  data: Record<string, unknown>;
  expiresAt: Date;
}

export const REPORTS = defineCollection<ReportRecord>({
  name: 'reports',
  fields: { deviceId: 'string', kind: 'string', createdAt: 'date', data: 'json', expiresAt: 'date' },
  indexes: [['deviceId', 'createdAt']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Report already exists',
});

export const ALL_COLLECTIONS = [USERS, ORGS, MEMBERSHIPS, DEVICES, REGISTRATIONS, AUDIT, REPORTS];
