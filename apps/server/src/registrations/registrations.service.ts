import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  canApproveFor,
  ConflictError,
  DeviceNotFoundError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  LIMITS,
  NotFoundError,
  parseScope,
  RateLimitedError,
  RegistrationStatusResult,
  roleAllows,
  effectiveDeviceRole,
} from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { Clock } from '../common/clock';
import { Storage } from '../storage/storage.port';
import { RegistrationsRepository } from '../storage/repositories/registrations.repository';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { callerAccess, SYSTEM_ACCESS } from '../storage/repositories/device-access-scope';
import { RegistrationRecord } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import { generateApiKey, hashApiKey, sealApiKey, unsealApiKey } from './api-keys';
import { FixedWindowRateLimiter } from './rate-limiter';
import type { RequestRegistrationInput } from './dto';
import { DeviceRevocations } from '../devices/device-presence';

/** The registration request state machine: pending → approved (key delivered once) | rejected. */
@Injectable()
export class RegistrationsService {
  private readonly limiter: FixedWindowRateLimiter;

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly storage: Storage,
    private readonly registrations: RegistrationsRepository,
    private readonly devices: DevicesRepository,
    private readonly audit: AuditService,
    private readonly revocations: DeviceRevocations,
    private readonly clock: Clock,
  ) {
    this.limiter = new FixedWindowRateLimiter(config.registrationRateLimit, 60_000);
  }

  async request(input: RequestRegistrationInput, sourceAddress: string): Promise<{ request_id: string }> {
    const now = this.clock.now();
    if (!this.limiter.tryHit(sourceAddress, now.getTime())) throw new RateLimitedError('Too many registration requests from this address; try again in a minute');
    const owner = parseScope(input.owner_scope);
    if (!owner) throw new InvalidInputError('owner_scope must be user:<email> (lower-case) or org:<org_id>');
    const record: RegistrationRecord = {
      id: `req_${randomBytes(16).toString('hex')}`,
      deviceId: input.device_id,
      ownerScope: input.owner_scope,
      info: { ...input.device_info },
      sourceAddress,
      status: 'pending',
      createdAt: now,
      expiresAt: new Date(now.getTime() + LIMITS.registrationTtlMs),
      sealedApiKey: null,
      delivered: false,
      decidedBy: null,
    };
    await this.storage.transaction(async () => {
      // A device asking again replaces its earlier request: the newest poller wins.
      for (const previous of await this.registrations.pendingForDevice(input.device_id, now)) await this.registrations.delete(previous.id);
      if ((await this.registrations.countPendingForScope(record.ownerScope, now)) >= this.config.maxPendingPerScope) {
        throw new RateLimitedError('Too many pending registration requests for this owner scope; approve or reject some first');
      }
      await this.registrations.insert(record);
    });
    await this.audit.record(`device:${input.device_id}`, 'device.registration_requested', {
      deviceId: input.device_id,
      details: `registration ${record.id} requested for ${record.ownerScope} by ${input.device_info.hostname} from ${sourceAddress}`,
    });
    return { request_id: record.id };
  }

  /** The runtime's poll. The key leaves the server exactly once; later polls get 410. */
  async status(requestId: string): Promise<RegistrationStatusResult> {
    const record = await this.registrations.findLive(requestId, this.clock.now());
    if (!record) throw new NotFoundError('Registration request not found or expired; register again');
    if (record.status === 'pending') return { status: 'pending' };
    if (record.status === 'rejected') return { status: 'rejected' };
    if (record.delivered || !record.sealedApiKey) throw new GoneError('The API key for this request was already delivered; register again for a new key');
    const claimed = await this.registrations.transition(record.id, { delivered: false }, { delivered: true, sealedApiKey: null });
    if (!claimed) throw new GoneError('The API key for this request was already delivered; register again for a new key');
    return { status: 'approved', api_key: unsealApiKey(record.sealedApiKey, this.config.adminKey, record.id), device_id: record.deviceId };
  }

  /** Pending requests the principal may decide on. */
  async pendingFor(principal: UserPrincipal): Promise<RegistrationRecord[]> {
    const approvable = principal.scopes.filter((scope) => canApproveFor(principal, scope));
    return this.registrations.pendingForScopes(approvable, this.clock.now());
  }

  /** Finds a pending request by request id or device id among those the principal may decide. */
  async findPending(principal: UserPrincipal, ref: string): Promise<RegistrationRecord | null> {
    const pending = await this.pendingFor(principal);
    return pending.find((r) => r.id === ref) ?? pending.find((r) => r.deviceId === ref) ?? null;
  }

  async approve(principal: UserPrincipal, ref: string): Promise<{ status: 'approved'; device_id: string }> {
    const now = this.clock.now();
    const record = await this.registrations.findLive(ref, now);
    const request = record?.status === 'pending' ? record : await this.findPending(principal, ref);
    if (!request || request.status !== 'pending') throw new NotFoundError('Registration request not found or expired');
    if (!canApproveFor(principal, request.ownerScope)) throw new ForbiddenError(`Access denied: you may not approve devices for ${request.ownerScope}`);

    const apiKey = generateApiKey();
    const lastRemoval = await this.audit.lastRecorded(request.deviceId, 'device.removed');
    const historySince = lastRemoval && lastRemoval > request.createdAt ? new Date(lastRemoval.getTime() + 1) : request.createdAt;
    let rekeyed = false;
    await this.storage.transaction(async () => {
      const existing = await this.devices.findById(SYSTEM_ACCESS, request.deviceId);
      if (existing) {
        const role = effectiveDeviceRole(principal, existing);
        if (role === null || !roleAllows(role, 'device:manage')) throw new ConflictError(`Device id ${request.deviceId} is already registered`);
        // Re-registration of a device the approver manages: new key, fresh info, requested owner.
        rekeyed = true;
        await this.devices.update(callerAccess(principal.scopes), existing.id, {
          apiKeyHash: hashApiKey(apiKey),
          info: request.info,
          name: request.info.hostname,
          ownerScope: request.ownerScope,
          approvedBy: principal.email,
        });
      } else {
        await this.devices.insert({
          id: request.deviceId,
          name: request.info.hostname,
          ownerScope: request.ownerScope,
          allowedScopes: [],
          shares: [],
          info: request.info,
          apiKeyHash: hashApiKey(apiKey),
          createdAt: now,
          approvedBy: principal.email,
          lastSeen: null,
          historySince,
        });
      }
      const moved = await this.registrations.transition(request.id, { status: 'pending' }, {
        status: 'approved',
        sealedApiKey: sealApiKey(apiKey, this.config.adminKey, request.id),
        decidedBy: principal.email,
      });
      if (!moved) throw new ConflictError('The registration request was decided concurrently');
    });
    await this.audit.record(principal, 'device.approved', {
      deviceId: request.deviceId,
      details: `approved request ${request.id} for ${request.ownerScope}${rekeyed ? '; previous API key revoked' : ''}`,
    });
    if (rekeyed) await this.revocations.revoked(request.deviceId);
    return { status: 'approved', device_id: request.deviceId };
  }

  /** Rejects a pending request; returns false when `ref` names no request the principal may decide. */
  async rejectPending(principal: UserPrincipal, ref: string): Promise<boolean> {
    const request = await this.findPending(principal, ref);
    if (!request) return false;
    const moved = await this.registrations.transition(request.id, { status: 'pending' }, { status: 'rejected', decidedBy: principal.email });
    if (!moved) throw new DeviceNotFoundError();
    await this.audit.record(principal, 'device.rejected', { deviceId: request.deviceId, details: `rejected request ${request.id}` });
    return true;
  }
}
