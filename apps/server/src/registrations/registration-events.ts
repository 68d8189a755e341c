import { Injectable } from '@nestjs/common';
import { FleetEvents } from '../events/fleet-events';
import type { RegistrationRecord } from '../storage/records';

/** The registration events of the event stream, for whoever decides the request's owner scope. */
@Injectable()
export class RegistrationEvents {
  constructor(private readonly events: FleetEvents) {}

  /** A runtime asked to register: what an approver compares (host, source, key fingerprint). */
  pending(request: RegistrationRecord): void {
    const { hostname, platform, architecture, os_version } = request.info;
    this.tell('registration.pending', request, { hostname, platform, architecture, os_version, source_address: request.sourceAddress, fingerprint: request.fingerprint });
  }

  decided(request: RegistrationRecord, status: 'approved' | 'rejected', by: string): void {
    this.tell(status === 'approved' ? 'registration.approved' : 'registration.rejected', request, { decided_by: by });
  }

  private tell(type: 'registration.pending' | 'registration.approved' | 'registration.rejected', request: RegistrationRecord, details: Record<string, unknown>): void {
    this.events.emit({
      type,
      audience: { approversOf: request.ownerScope },
      deviceId: request.deviceId,
      deviceName: request.name ?? request.info.hostname,
      details: { request_id: request.id, owner_scope: request.ownerScope, ...details },
    });
  }
}
