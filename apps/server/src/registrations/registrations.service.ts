import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  CatalogRouteInput,
  ConflictError,
  DeviceNotFoundError,
  GoneError,
  deviceNameProblem,
  InvalidInputError,
  keyFingerprint,
  LIMITS,
  NotFoundError,
  parseScope,
  RateLimitedError,
  RegistrationApprovalResult,
  RegistrationBulkRejectResult,
  RegistrationRequestResult,
  RegistrationStatusResult,
  UnauthenticatedError,
} from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { ServerMetrics } from '../common/server-metrics';
import { Clock } from '../common/clock';
import { Storage } from '../storage/storage.port';
import { DeviceRecords } from '../devices/records/device-records';
import { callerAccess, SYSTEM_ACCESS } from '../devices/records/device-access-scope';
import { RegistrationsRepository } from './registrations.repository';
import { DeviceRecord, RegistrationRecord } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import { Handles, OperationCall } from '../authorization/catalog-controller';
import type { UserPrincipal } from '../auth/principal';
import { generateApiKey, hashApiKey, sealApiKey, unsealApiKey } from './api-keys';
import { RegistrationRateLimiter } from './rate-limiter';
import { RegistrationProof, registrationProofHolds } from './registration-proof';

import { DeviceRevocations } from './device-revocations';
import { AccessPolicy, RekeyPlan } from '../authorization/access-policy.service';
import { RegistrationEvents } from './registration-events';

/** One answer for every failed poll, so that a request id alone tells nothing, not even whether it exists. */
const PROOF_REFUSED = 'Registration proof missing or invalid';

/** A pending request as its approver sees it: is the device id already bound to another key? */
export interface PendingReview {
  request: RegistrationRecord;
  /** The id is registered (visibly to the approver) with another key, or with none recorded. */
  keyMismatch: boolean;
  registeredFingerprint: string | null;
  /** The registered device (visible to the approver) whose key approving this request replaces. */
  replaces: DeviceRecord | null;
}

/**
 * The registration request state machine: pending → approved (key delivered once, to the holder
 * of the request's identity key) | rejected. Several requests may wait for one device id;
 * approving one rejects the others for the same owner, never another owner's (AccessPolicy's
 * device-id claim rule).
 */
@Injectable()
export class RegistrationsService {
  private readonly limiter: RegistrationRateLimiter;

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly storage: Storage,
    private readonly registrations: RegistrationsRepository,
    private readonly devices: DeviceRecords,
    private readonly audit: AuditService,
    private readonly revocations: DeviceRevocations,
    private readonly policy: AccessPolicy,
    private readonly clock: Clock,
    private readonly events: RegistrationEvents,
    metrics: ServerMetrics,
  ) {
    this.limiter = new RegistrationRateLimiter(registrations, config.registrationRateLimit, 60_000);
    metrics.observeRegistrationsPending(() => this.registrations.countPending(this.clock.now()));
  }

  async request(input: CatalogRouteInput<'registration_request'>, sourceAddress: string): Promise<RegistrationRequestResult> {
    const nameProblem = input.name === undefined ? null : deviceNameProblem(input.name);
    if (nameProblem !== null) throw new InvalidInputError(`name: ${nameProblem}`);
    const now = this.clock.now();
    if (!(await this.limiter.tryHit(sourceAddress, now))) throw new RateLimitedError('Too many registration requests from this address; try again in a minute');
    const owner = parseScope(input.owner_scope);
    if (!owner) throw new InvalidInputError('owner_scope must be user:<email> (lower-case) or org:<org_id>');
    const record: RegistrationRecord = {
      id: `req_${randomBytes(16).toString('hex')}`,
      deviceId: input.device_id,
      ownerScope: input.owner_scope,
      info: { ...input.device_info },
      sourceAddress,
      publicKey: input.public_key,
      fingerprint: keyFingerprint(input.public_key),
      status: 'pending',
      createdAt: now,
      expiresAt: new Date(now.getTime() + LIMITS.registrationTtlMs),
      sealedApiKey: null,
      delivered: false,
      decidedBy: null,
      name: input.name ?? null,
    };
    await this.storage.transaction(async () => {
      // Earlier requests for the same id stay: a newcomer cannot displace the genuine one.
      if ((await this.registrations.countPendingForScopeFromSource(record.ownerScope, sourceAddress, now)) >= this.config.maxPendingPerSource) {
        throw new RateLimitedError('Too many pending registration requests for this owner scope from this address; approve or reject some first');
      }
      if ((await this.registrations.countPendingForScope(record.ownerScope, now)) >= this.config.maxPendingPerScope) {
        throw new RateLimitedError('Too many pending registration requests for this owner scope; approve or reject some first');
      }
      await this.registrations.insert(record);
    });
    // Device viewers read this entry: no request id (it belongs to the runtime and approvers).
    await this.audit.record(`device:${input.device_id}`, 'device.registration_requested', {
      deviceId: input.device_id,
      details: `registration requested for ${record.ownerScope} by ${input.device_info.hostname} from ${sourceAddress}, key ${record.fingerprint}`,
    });
    this.events.pending(record);
    return { request_id: record.id, fingerprint: record.fingerprint };
  }

  /**
   * The runtime's poll, signed with the request's identity key. The API key leaves the server
   * exactly once; later polls get 410.
   */
  async status(requestId: string, proof: RegistrationProof): Promise<RegistrationStatusResult> {
    const now = this.clock.now();
    const record = await this.registrations.findLive(requestId, now);
    if (!registrationProofHolds(record?.publicKey ?? null, requestId, proof, now)) throw new UnauthenticatedError(PROOF_REFUSED);
    const request = record!;
    if (request.status === 'pending') return { status: 'pending' };
    if (request.status === 'rejected') return { status: 'rejected' };
    if (request.delivered || !request.sealedApiKey) throw new GoneError('The API key for this request was already delivered; register again for a new key');
    const claimed = await this.registrations.transition(request.id, { delivered: false }, { delivered: true, sealedApiKey: null });
    if (!claimed) throw new GoneError('The API key for this request was already delivered; register again for a new key');
    return { status: 'approved', api_key: unsealApiKey(request.sealedApiKey, this.config.serverSecret, request.id), device_id: request.deviceId };
  }

  /** Pending requests the principal may decide on. */
  async pendingFor(principal: UserPrincipal): Promise<RegistrationRecord[]> {
    return this.registrations.pendingForScopes(this.policy.approvableScopes(principal), this.clock.now());
  }

  /**
   * The pending list with each request's key compared to the one its device id is registered
   * with. Devices the approver cannot reach are not looked at: to it they do not exist.
   */
  async reviewPending(principal: UserPrincipal): Promise<PendingReview[]> {
    const pending = await this.pendingFor(principal);
    const registered = new Map<string, DeviceRecord | null>();
    for (const deviceId of new Set(pending.map((r) => r.deviceId))) registered.set(deviceId, await this.devices.findById(callerAccess(principal.scopes), deviceId));
    return pending.map((request) => {
      const device = registered.get(request.deviceId);
      const keyMismatch = !!device && device.publicKey !== request.publicKey;
      return { request, keyMismatch, registeredFingerprint: keyMismatch ? (device!.fingerprint ?? null) : null, replaces: device ?? null };
    });
  }

  /**
   * Finds a pending request by request id or device id among those the principal may decide. A
   * device id with several pending requests is ambiguous: the caller picks one by request id.
   */
  async findPending(principal: UserPrincipal, ref: string): Promise<RegistrationRecord | null> {
    const pending = await this.pendingFor(principal);
    const byId = pending.find((r) => r.id === ref);
    if (byId) return byId;
    const forDevice = pending.filter((r) => r.deviceId === ref);
    if (forDevice.length > 1) {
      const listed = forDevice.map((r) => `${r.id} (key ${r.fingerprint}, ${r.info.hostname} from ${r.sourceAddress})`).join(', ');
      throw new ConflictError(`Device ${ref} has ${forDevice.length} pending registration requests: ${listed}; decide one by request_id`);
    }
    return forDevice[0] ?? null;
  }

  /** devices_approve, by `device` or, as older callers send it, `request_id`; decided here (AccessPolicy.requireApprover). */
  @Handles('devices_approve', { authorizedBy: 'service' })
  async approve({ principal, input }: OperationCall<'devices_approve'>): Promise<RegistrationApprovalResult> {
    const ref = (input.device ?? input.request_id)!;
    const now = this.clock.now();
    const record = await this.registrations.findLive(ref, now);
    const request = record?.status === 'pending' ? record : await this.findPending(principal, ref);
    if (!request || request.status !== 'pending') throw new NotFoundError('Registration request not found or expired');
    await this.policy.requireApprover(principal, request);
    // Decided once before the transaction, where a refusal's audit entry is kept, and again inside it against what it reads.
    const registered = await this.devices.findById(SYSTEM_ACCESS, request.deviceId);
    await this.authorizeApproval(principal, request, registered, await this.registrations.pendingForDevice(request.deviceId, now));

    const apiKey = generateApiKey();
    const lastRemoval = await this.audit.lastRecorded(request.deviceId, 'device.removed');
    const historySince = lastRemoval && lastRemoval > request.createdAt ? new Date(lastRemoval.getTime() + 1) : request.createdAt;
    const binding = { publicKey: request.publicKey, fingerprint: request.fingerprint };
    let revokedKeyHash: string | null = null;
    let ownerScope = request.ownerScope;
    const rejectedTogether: RegistrationRecord[] = [];
    await this.storage.transaction(async () => {
      const existing = await this.devices.findById(SYSTEM_ACCESS, request.deviceId);
      const waiting = await this.registrations.pendingForDevice(request.deviceId, now);
      const plan = await this.authorizeApproval(principal, request, existing, waiting);
      if (existing && plan) {
        revokedKeyHash = existing.apiKeyHash;
        ownerScope = plan.ownerScope;
        await this.devices.update(callerAccess(principal.scopes), existing.id, {
          apiKeyHash: hashApiKey(apiKey),
          info: request.info,
          // A re-key keeps the device's name (it may have been renamed) unless the runtime asks for one.
          ...(request.name ? { name: request.name } : {}),
          approvedBy: principal.email,
          ...plan.ownerChange,
        });
      } else {
        await this.devices.insert({
          id: request.deviceId,
          name: request.name ?? request.info.hostname,
          ownerScope: request.ownerScope,
          allowedScopes: [],
          shares: [],
          info: request.info,
          apiKeyHash: hashApiKey(apiKey),
          createdAt: now,
          approvedBy: principal.email,
          lastSeen: null,
          historySince,
          ...binding,
        });
      }
      if (existing) await this.devices.update(SYSTEM_ACCESS, existing.id, binding);
      const moved = await this.registrations.transition(request.id, { status: 'pending' }, {
        status: 'approved',
        sealedApiKey: sealApiKey(apiKey, this.config.serverSecret, request.id),
        decidedBy: principal.email,
      });
      if (!moved) throw new ConflictError('The registration request was decided concurrently');
      for (const other of waiting) {
        if (other.id === request.id || !this.policy.decidedTogether(request, other)) continue;
        if (await this.registrations.transition(other.id, { status: 'pending' }, { status: 'rejected', decidedBy: principal.email })) rejectedTogether.push(other);
      }
    });
    const notes = [revokedKeyHash ? 'previous API key revoked' : '', rejectedTogether.length > 0 ? `${rejectedTogether.length} other pending request(s) for this id and owner rejected` : ''].filter(Boolean);
    await this.audit.record(principal, 'device.approved', {
      deviceId: request.deviceId,
      details: `approved for ${ownerScope}: ${describeRequest(request)}${notes.map((n) => `; ${n}`).join('')}`,
    });
    if (revokedKeyHash) await this.revocations.revoked({ id: request.deviceId, apiKeyHash: revokedKeyHash }, 'rekeyed');
    this.events.decided(request, 'approved', principal.email);
    for (const other of rejectedTogether) this.events.decided(other, 'rejected', principal.email);
    return { status: 'approved', device_id: request.deviceId, fingerprint: request.fingerprint };
  }

  /**
   * The policy's decisions on approving `request` given the device registered under its id (if
   * any) and the requests waiting for that id: the device-id claim for a new id; for a registered
   * one, the key change and the re-key plan (device:manage; the owner changes only as the
   * owner-change rules allow).
   */
  private async authorizeApproval(principal: UserPrincipal, request: RegistrationRecord, existing: DeviceRecord | null, waiting: RegistrationRecord[]): Promise<RekeyPlan | null> {
    if (!existing) {
      await this.policy.requireDeviceIdClaim(principal, request, waiting);
      return null;
    }
    await this.policy.requireKeyChange(principal, existing, request.publicKey);
    return this.policy.planRekey(principal, existing, request.ownerScope);
  }

  /** Rejects a pending request; returns false when `ref` names no request the principal may decide. */
  async rejectPending(principal: UserPrincipal, ref: string): Promise<boolean> {
    const request = await this.findPending(principal, ref);
    if (!request) return false;
    if (!(await this.decline(principal, request))) throw new DeviceNotFoundError();
    return true;
  }

  /** Bulk reject (a flood of requests): every pending request the principal may decide that matches all given filters. */
  async rejectMatching(principal: UserPrincipal, filter: CatalogRouteInput<'registrations_reject'>): Promise<RegistrationBulkRejectResult> {
    const matching = (await this.pendingFor(principal)).filter(
      (r) =>
        (filter.owner_scope === undefined || r.ownerScope === filter.owner_scope) &&
        (filter.source_address === undefined || r.sourceAddress === filter.source_address) &&
        (filter.device_id === undefined || r.deviceId === filter.device_id),
    );
    let count = 0;
    for (const request of matching) if (await this.decline(principal, request)) count++;
    return { status: 'rejected', count };
  }

  /** An organization renamed: its requests follow (inside the rename's transaction). */
  renameOwnerScope(from: string, to: string): Promise<number> {
    return this.registrations.renameOwnerScope(from, to);
  }

  /** An organization deleted: nobody can approve its pending requests any more. */
  rejectPendingForOwnerScope(ownerScope: string, decidedBy: string): Promise<number> {
    return this.registrations.rejectPendingForOwnerScope(ownerScope, decidedBy);
  }

  private async decline(principal: UserPrincipal, request: RegistrationRecord): Promise<boolean> {
    const moved = await this.registrations.transition(request.id, { status: 'pending' }, { status: 'rejected', decidedBy: principal.email });
    if (!moved) return false;
    await this.audit.record(principal, 'device.rejected', { deviceId: request.deviceId, details: `rejected registration request: ${describeRequest(request)}` });
    this.events.decided(request, 'rejected', principal.email);
    return true;
  }
}

/** How audit entries name a request: never by its id (device viewers read them). */
function describeRequest(request: RegistrationRecord): string {
  return `key ${request.fingerprint}, ${request.info.hostname} from ${request.sourceAddress}`;
}
