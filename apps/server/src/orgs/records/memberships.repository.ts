import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { OrgRole } from '@svc/common';
import { Storage } from '../../storage/storage.port';
import { MEMBERSHIPS, MembershipRecord } from '../../storage/records';

@Injectable()
export class MembershipsRepository {
  private readonly memberships;

  constructor(storage: Storage) {
    this.memberships = storage.collection(MEMBERSHIPS);
  }

  forUser(email: string): Promise<MembershipRecord[]> {
    return this.memberships.find({ email }, { sort: { field: 'orgId', direction: 'asc' } });
  }

  forOrg(orgId: string): Promise<MembershipRecord[]> {
    return this.memberships.find({ orgId }, { sort: { field: 'email', direction: 'asc' } });
  }

  find(orgId: string, email: string): Promise<MembershipRecord | null> {
    return this.memberships.findOne({ orgId, email });
  }

  countForOrg(orgId: string): Promise<number> {
    return this.memberships.count({ orgId });
  }

  add(orgId: string, email: string, role: OrgRole, now: Date): Promise<void> {
    return this.memberships.insert({ id: randomUUID(), orgId, email, role, createdAt: now });
  }

  setRole(orgId: string, email: string, role: OrgRole): Promise<boolean> {
    return this.memberships.updateOne({ orgId, email }, { role });
  }

  remove(orgId: string, email: string): Promise<boolean> {
    return this.memberships.deleteOne({ orgId, email });
  }

  removeOrg(orgId: string): Promise<number> {
    return this.memberships.deleteMany({ orgId });
  }

  renameOrg(orgId: string, newId: string): Promise<number> {
    return this.memberships.updateMany({ orgId }, { orgId: newId });
  }
}
