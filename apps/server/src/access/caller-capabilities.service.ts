import { Injectable } from '@nestjs/common';
import type { OperationResults } from '@svc/common';
import type { Principal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import { Handles, OperationCall } from '../authorization/catalog-controller';

/**
 * What the caller may do on the server and on an organization, as AccessPolicy decides it (like
 * device_capabilities), so the dashboard shows only controls that will work; the routes refuse the
 * rest anyway. Users and the admin key alike; an organization the caller cannot see is not found
 * (OperationGuard, `org:view`).
 */
@Injectable()
export class CallerCapabilitiesService {
  constructor(private readonly policy: AccessPolicy) {}

  @Handles('server_capabilities')
  server({ principal }: OperationCall<'server_capabilities', Principal>): OperationResults['server_capabilities'] {
    return { capabilities: this.policy.serverCapabilities(principal) };
  }

  @Handles('org_capabilities')
  org({ principal, authorized }: OperationCall<'org_capabilities', Principal>): OperationResults['org_capabilities'] {
    const org = authorized.org!;
    return { org_id: org.id, capabilities: this.policy.orgCapabilitiesOn(principal, org) };
  }
}
