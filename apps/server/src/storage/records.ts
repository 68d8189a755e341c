/** The persisted records and their collections: the single schema both adapters build from. */
import type { Job, OrgRole, RollbackPolicy } from '@svc/common';
import { defineCollection } from './storage.port';

export interface UserRecord {
  id: string; // the normalized e-mail
  /** `sub` of the first token seen at `subjectIssuer`; null until the first sign-in or after a reset. */
  subject: string | null;
  /** The issuer `subject` belongs to; missing on accounts bound before it was recorded. */
  subjectIssuer?: string | null;
  active: boolean;
  /** Granted through the API; addresses in ADMIN_EMAILS are admins regardless. */
  admin: boolean;
  createdAt: Date;
  approvedAt: Date | null;
  approvedBy: string | null;
}

export const USERS = defineCollection<UserRecord>({
  name: 'users',
  fields: { subject: 'string', subjectIssuer: 'string', active: 'boolean', admin: 'boolean', createdAt: 'date', approvedAt: 'date', approvedBy: 'string' },
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
  /**
   * Changes on every write (DevicesRepository sets it), so a write conditioned on the revision it
   * read is a compare-and-set: concurrent share edits cannot overwrite each other. Missing on a
   * device never written since its insert.
   */
  revision?: string;
  /**
   * The runtime identity key (base64url Ed25519) that registered this id, and its fingerprint: a
   * request from another key is a key change only the owner may approve. Null on devices
   * registered before keys were recorded.
   */
  publicKey?: string | null;
  fingerprint?: string | null;
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
    revision: 'string',
    publicKey: 'string',
    fingerprint: 'string',
  },
  unique: [['apiKeyHash']],
  // (ownerScope, id, name) serves owner-scoped listings and their pages, sorted by id, on its own.
  indexes: [['ownerScope', 'id', 'name'], ['allowedScopes'], ['name']],
  conflictMessage: 'Device already registered',
});

export type RegistrationStatus = 'pending' | 'approved' | 'rejected';

export interface RegistrationRecord {
  id: string; // the request_id
  deviceId: string;
  ownerScope: string;
  info: DeviceSystemInfo;
  sourceAddress: string;
  /** The requesting runtime's identity key (base64url Ed25519); status polls must be signed by it. */
  publicKey: string;
  /** keyFingerprint(publicKey): what the approver compares with the device's own display. */
  fingerprint: string;
  status: RegistrationStatus;
  createdAt: Date;
  expiresAt: Date;
  /** The minted API key, encrypted, kept only until the runtime's first successful poll. */
  sealedApiKey: string | null;
  delivered: boolean;
  decidedBy: string | null;
  /** The display name the runtime asked for (`--name`); the device is named after its host otherwise. */
  name?: string | null;
}

export const REGISTRATIONS = defineCollection<RegistrationRecord>({
  name: 'registrations',
  fields: {
    deviceId: 'string',
    ownerScope: 'string',
    info: 'json',
    sourceAddress: 'string',
    publicKey: 'string',
    fingerprint: 'string',
    status: 'string',
    createdAt: 'date',
    expiresAt: 'date',
    sealedApiKey: 'string',
    delivered: 'boolean',
    decidedBy: 'string',
    name: 'string',
  },
  indexes: [['deviceId'], ['ownerScope', 'status', 'sourceAddress']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Registration request already exists',
});

/** One registration request counted against its source address's rate limit (REGISTRATION_RATE_LIMIT per minute). */
export interface RegistrationHitRecord {
  id: string;
  source: string;
  at: Date;
  expiresAt: Date;
}

export const REGISTRATION_HITS = defineCollection<RegistrationHitRecord>({
  name: 'registration_hits',
  fields: { source: 'string', at: 'date', expiresAt: 'date' },
  indexes: [['source', 'at']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Registration hit already recorded',
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
  /** On `device.removed` only: whose device it was, and where its history began (its former owner still reads it). */
  formerOwnerScope?: string | null;
  formerHistorySince?: Date | null;
}

export const AUDIT = defineCollection<AuditRecord>({
  name: 'audit',
  fields: { timestamp: 'date', user: 'string', action: 'string', deviceId: 'string', orgId: 'string', details: 'string', expiresAt: 'date', formerOwnerScope: 'string', formerHistorySince: 'date' },
  indexes: [['deviceId', 'timestamp'], ['orgId', 'timestamp']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Audit entry already exists',
});

/** Deployment and job reports sent by runtimes; kept REPORT_RETENTION_DAYS. */
export interface ReportRecord {
  id: string;
  deviceId: string;
  kind: string;
  /** What the report is about within its kind (a deployment_status report: the deployment id), for "the newest report on X". */
  subject?: string | null;
  createdAt: Date;
  data: Record<string, unknown>;
  expiresAt: Date;
}

export const REPORTS = defineCollection<ReportRecord>({
  name: 'reports',
  fields: { deviceId: 'string', kind: 'string', subject: 'string', createdAt: 'date', data: 'json', expiresAt: 'date' },
  indexes: [['deviceId', 'createdAt'], ['deviceId', 'kind', 'subject', 'createdAt']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Report already exists',
});

/** One deployment of a device (DeploymentDocument without `active`, which the device's head decides). */
export interface DeploymentRecord {
  id: string;
  deviceId: string;
  name: string | null;
  jobs: Job[];
  rollback: RollbackPolicy | null;
  createdAt: Date;
  /** The last change of its jobs, rollback policy or name. */
  updatedAt: Date;
  /**
   * When it last became active. Activating writes it, so an activation and a removal of the same
   * deployment touch one document and cannot both commit (MongoDB would otherwise let two
   * transactions pass each other: the head pointing at a removed deployment).
   */
  activatedAt: Date | null;
}

export const DEPLOYMENTS = defineCollection<DeploymentRecord>({
  name: 'deployments',
  fields: { deviceId: 'string', name: 'string', jobs: 'json', rollback: 'json', createdAt: 'date', updatedAt: 'date', activatedAt: 'date' },
  indexes: [['deviceId', 'createdAt']],
  conflictMessage: 'Deployment already exists',
});

/**
 * Which deployment of a device is active: one record per device (id = device id), so two active
 * deployments cannot be represented, and activating one is the single write that deactivates the
 * other. `revision` grows with every change of the device's desired state (activation, the active
 * deployment's jobs, a rollback): the deployment channel sends it along, and replicas compare it.
 */
export interface DeploymentHeadRecord {
  id: string;
  activeDeploymentId: string | null;
  revision: number;
  /**
   * The device's last automatic rollback, while the deployment it went back to stays active as the
   * rollback left it: any other move of the head (an activation, a change of the active
   * deployment's jobs) clears it. Absent in heads written before it existed.
   */
  lastRollback?: HeadRollback | null;
}

/** A rollback the device reported and the server followed: from which deployment, why, when (server time, ISO 8601). */
export interface HeadRollback {
  deployment_id: string;
  reason: string;
  at: string;
}

export const DEPLOYMENT_HEADS = defineCollection<DeploymentHeadRecord>({
  name: 'deployment_heads',
  fields: { activeDeploymentId: 'string', revision: 'number', lastRollback: 'json' },
  conflictMessage: 'Deployment head already exists',
});

/**
 * A device API key that stopped being valid (device removed or re-keyed). Written to storage so
 * that every server replica, not only the one that took the decision, closes the device's tunnel.
 */
export interface RevocationRecord {
  id: string;
  deviceId: string;
  apiKeyHash: string;
  reason: 'removed' | 'rekeyed';
  /** The server process that wrote it; it has already acted on its own revocations. */
  origin: string;
  revokedAt: Date;
  expiresAt: Date;
}

export const REVOCATIONS = defineCollection<RevocationRecord>({
  name: 'revocations',
  fields: { deviceId: 'string', apiKeyHash: 'string', reason: 'string', origin: 'string', revokedAt: 'date', expiresAt: 'date' },
  indexes: [['revokedAt'], ['apiKeyHash']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Revocation already recorded',
});

export const ALL_COLLECTIONS = [USERS, ORGS, MEMBERSHIPS, DEVICES, REGISTRATIONS, REGISTRATION_HITS, AUDIT, REPORTS, REVOCATIONS, DEPLOYMENTS, DEPLOYMENT_HEADS];
