import { Injectable } from '@nestjs/common';
import type { MembershipRecord, OrgRecord } from '../../storage/records';
import { MembershipsRepository } from './memberships.repository';
import { OrgsRepository } from './orgs.repository';

/**
 * What other features read of organizations, through the orgs feature: AccessPolicy's
 * organization checks, sharing's "does it exist", and a signed-in user's memberships (its
 * organization scopes).
 */
@Injectable()
export class OrgRecords {
  constructor(
    private readonly orgs: OrgsRepository,
    private readonly memberships: MembershipsRepository,
  ) {}

  findById(id: string): Promise<OrgRecord | null> {
    return this.orgs.findById(id);
  }

  /** One user's membership of one organization, if any. */
  membership(orgId: string, email: string): Promise<MembershipRecord | null> {
    return this.memberships.find(orgId, email);
  }

  /** A user's memberships, by organization id. */
  membershipsOf(email: string): Promise<MembershipRecord[]> {
    return this.memberships.forUser(email);
  }
}
