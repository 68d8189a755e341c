import { Inject, Injectable } from '@nestjs/common';
import {
  canonicalEmail,
  ConflictError,
  InvalidInputError,
  isOrgId,
  NotFoundError,
  OrganizationResult,
  OrgMemberResult,
  orgScope,
  toOrgRole,
  toToolRole,
  userScope,
} from '@svc/common';
import { Clock } from '../common/clock';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { Storage } from '../storage/storage.port';
import { RegistrationsService } from '../registrations/registrations.service';
import { DeviceRecords } from '../devices/records/device-records';
import { callerAccess, SYSTEM_ACCESS } from '../devices/records/device-access-scope';
import { OrgsRepository } from './records/orgs.repository';
import { MembershipsRepository } from './records/memberships.repository';
import { AuditService } from '../audit/audit.service';
import { AccessPolicy, ownerChangeFields } from '../authorization/access-policy.service';
import { Handles, OperationCall } from '../authorization/catalog-controller';
import { actorName, Principal } from '../auth/principal';
import type { OrgRecord } from '../storage/records';
import { FleetEvents } from '../events/fleet-events';

/** Organizations and their members. Device moves in and out live in OrgDevicesService. */
@Injectable()
export class OrgsService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly storage: Storage,
    private readonly registrations: RegistrationsService,
    private readonly orgs: OrgsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly devices: DeviceRecords,
    private readonly audit: AuditService,
    private readonly policy: AccessPolicy,
    private readonly clock: Clock,
    private readonly events: FleetEvents,
  ) {}

  @Handles('org_list')
  async list({ principal }: OperationCall<'org_list', Principal>): Promise<OrganizationResult[]> {
    const visible = this.policy.visibleOrgIds(principal);
    const orgs = await this.orgs.list(visible === 'all' ? undefined : visible);
    return Promise.all(orgs.map(async (o) => ({ id: o.id, owner: o.owner, members: await this.memberships.countForOrg(o.id) })));
  }

  @Handles('org_show')
  async show({ authorized }: OperationCall<'org_show', Principal>): Promise<OrganizationResult> {
    const org = authorized.org!;
    return { id: org.id, owner: org.owner, members: await this.memberships.countForOrg(org.id) };
  }

  @Handles('org_create', { status: 201 })
  async create({ principal, input }: OperationCall<'org_create', Principal>): Promise<{ status: 'created' }> {
    const { id, email: rawEmail } = input;
    checkOrgId(id, 'id');
    const owner = checkEmail(rawEmail);
    const now = this.clock.now();
    await this.storage.transaction(async () => {
      await this.orgs.insert({ id, owner, createdAt: now });
      await this.memberships.add(id, owner, 'admin', now);
    });
    await this.audit.record(principal, 'org.created', { orgId: id, details: `created organization ${id} owned by ${owner}` });
    return { status: 'created' };
  }

  /**
   * Deleting hands the organization's devices to its owner personally, as an owner change (their
   * shares are reset), and drops the organization's shares on other devices.
   */
  @Handles('org_delete')
  async delete({ principal, authorized }: OperationCall<'org_delete', Principal>): Promise<{ status: 'deleted' }> {
    const org = authorized.org!;
    const id = org.id;
    const scope = orgScope(id);
    let moved = 0;
    await this.storage.transaction(async () => {
      for (const device of await this.devices.reachedBy(callerAccess([scope]))) {
        if (device.ownerScope === scope) {
          moved += 1;
          await this.devices.update(SYSTEM_ACCESS, device.id, ownerChangeFields(userScope(org.owner)));
          continue;
        }
        await this.devices.setShares(SYSTEM_ACCESS, device, device.shares.filter((s) => s.scope !== scope));
      }
      await this.registrations.rejectPendingForOwnerScope(scope, actorName(principal));
      await this.memberships.removeOrg(id);
      await this.orgs.delete(id);
    });
    await this.audit.record(principal, 'org.deleted', { orgId: id, details: `deleted organization ${id}; ${moved} device(s) moved to ${org.owner}` });
    return { status: 'deleted' };
  }

  /** Renames the id everywhere it appears: memberships, device owners and device shares. */
  @Handles('org_update')
  async rename({ principal, authorized, input }: OperationCall<'org_update', Principal>): Promise<{ status: 'updated' }> {
    const [org, newId] = [authorized.org!, input.new_id];
    checkOrgId(newId, 'new_id');
    const id = org.id;
    if (newId === id) return { status: 'updated' };
    const [from, to] = [orgScope(id), orgScope(newId)];
    await this.storage.transaction(async () => {
      await this.orgs.insert({ ...org, id: newId });
      await this.orgs.delete(id);
      await this.memberships.renameOrg(id, newId);
      await this.registrations.renameOwnerScope(from, to);
      await this.devices.renameScope(from, to);
    });
    await this.audit.record(principal, 'org.renamed', { orgId: newId, details: `renamed organization ${id} to ${newId}` });
    return { status: 'updated' };
  }

  @Handles('org_members_list')
  async members({ authorized }: OperationCall<'org_members_list', Principal>): Promise<OrgMemberResult[]> {
    return (await this.memberships.forOrg(authorized.org!.id)).map((m) => ({ email: m.email, role: toToolRole(m.role) }));
  }

  @Handles('org_members_add')
  async addMember({ principal, authorized, input }: OperationCall<'org_members_add', Principal>): Promise<{ status: 'added' }> {
    const [org, rawEmail, role] = [authorized.org!, input.email, input.role];
    const orgId = org.id;
    const email = checkEmail(rawEmail);
    if (email === org.owner && role !== 'admin') throw new ConflictError('The organization owner is always an admin');
    const existing = await this.memberships.find(orgId, email);
    if (existing) await this.memberships.setRole(orgId, email, toOrgRole(role));
    else await this.memberships.add(orgId, email, toOrgRole(role), this.clock.now());
    await this.audit.record(principal, existing ? 'org.member_updated' : 'org.member_added', { orgId, details: `${email} as ${role}` });
    this.events.emit({ type: 'access.changed', audience: { orgId, member: email }, details: { change: existing ? 'member_updated' : 'member_added', email, role } });
    return { status: 'added' };
  }

  /** Admins remove anyone but the owner; any member but the owner may leave (AccessPolicy.requireMemberRemoval). */
  @Handles('org_members_remove', { authorizedBy: 'service' })
  async removeMember({ principal, input }: OperationCall<'org_members_remove', Principal>): Promise<{ status: 'removed' }> {
    const { org_id: orgId, email: rawEmail } = input;
    const email = checkEmail(rawEmail);
    await this.policy.requireMemberRemoval(principal, orgId, email);
    await this.storage.transaction(async () => {
      if (!(await this.memberships.remove(orgId, email))) throw new NotFoundError(`${email} is not a member of ${orgId}`);
      if (!this.config.allowCrossOrgDeviceSharing) await this.dropSharesOnOrgDevices(orgId, userScope(email));
    });
    await this.audit.record(principal, 'org.member_removed', { orgId, details: `removed ${email}` });
    this.events.emit({ type: 'access.changed', audience: { orgId, member: email }, details: { change: 'member_removed', email } });
    return { status: 'removed' };
  }

  /**
   * Without cross-organization sharing, a personal share on an organization's device exists only
   * because its holder was a member; leaving the organization ends it.
   */
  private async dropSharesOnOrgDevices(orgId: string, scope: string): Promise<void> {
    for (const device of await this.devices.reachedBy(callerAccess([orgScope(orgId)]))) {
      if (device.ownerScope !== orgScope(orgId) || !device.allowedScopes.includes(scope)) continue;
      await this.devices.setShares(SYSTEM_ACCESS, device, device.shares.filter((s) => s.scope !== scope));
    }
  }
}

function checkOrgId(id: string, field: string): void {
  if (typeof id !== 'string' || !isOrgId(id)) {
    throw new InvalidInputError(`${field} must be 2-63 characters of lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`);
  }
}

function checkEmail(raw: string): string {
  const email = canonicalEmail(typeof raw === 'string' ? raw : '');
  if (email === null) throw new InvalidInputError('email must be a valid e-mail address');
  return email;
}
