import { Injectable } from '@nestjs/common';
import { DomainError } from '@svc/common';
import { AuditService } from '../audit/audit.service';
import type { Principal } from '../auth/principal';

/** What a refusal was about: the device or organization its audit entry is filed under. */
export interface RefusalSubject {
  deviceId?: string;
  orgId?: string;
}

/**
 * Records every refusal AccessPolicy decides, at the point of decision (as Teleport does), so
 * "who tried what and was refused" is in the audit log: `access.refused`, filed under the device
 * or organization concerned. A target hidden from the caller ("not found") is not recorded: to
 * that caller it does not exist, and nothing of it may be named on its behalf.
 */
@Injectable()
export class RefusalAudit {
  constructor(private readonly audit: AuditService) {}

  /** Records the refusal and hands back the error to throw. */
  async refused<E extends DomainError>(principal: Principal | string, what: string, subject: RefusalSubject, error: E): Promise<E> {
    await this.audit.record(principal, 'access.refused', { ...subject, details: `refused ${what}: ${error.message}` });
    return error;
  }
}
