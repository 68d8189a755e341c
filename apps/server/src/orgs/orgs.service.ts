import { Inject, Injectable } from '@nestjs/common';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  isEmail,
  isOrgId,
  normalizeEmail,
  NotFoundError,
  OrganizationResult,
  OrgMemberResult,
  orgScope,
  toOrgRole,
  toToolRole,
  ToolRole,
  userScope,
} from '@svc/common';
import { Clock } from '../common/clock';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { RegistrationsRepository } from '../storage/repositories/registrations.repository';
import { Storage } from '../storage/storage.port';
import { OrgsRepository } from '../storage/repositories/orgs.repository';
import { MembershipsRepository } from '../storage/repositories/memberships.repository';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { callerAccess, SYSTEM_ACCESS } from '../storage/repositories/device-access-scope';
import { OrgRecord } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import { actorName, isAdmin, membershipRole, Principal } from '../auth/principal';

type Need = 'member' | 'admin';

/** Organizations and their members. Device moves in and out live in OrgDevicesService. */
@Injectable()
export class OrgsService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly storage: Storage,
    private readonly registrations: RegistrationsRepository,
    private readonly orgs: OrgsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly devices: DevicesRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal): Promise<OrganizationResult[]> {
    const orgs = isAdmin(principal) ? await this.orgs.list() : await this.orgs.list(principal.kind === 'user' ? principal.memberships.map((m) => m.orgId) : []);
    return Promise.all(orgs.map(async (o) => ({ id: o.id, owner: o.owner, members: await this.memberships.countForOrg(o.id) })));
  }

  async create(principal: Principal, id: string, rawEmail: string): Promise<{ status: 'created' }> {
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

  /** Deleting hands the organization's devices to its owner personally and drops its shares. */
  async delete(principal: Principal, id: string): Promise<{ status: 'deleted' }> {
    const org = await this.authorize(principal, id, 'admin');
    if (!isAdmin(principal) && principal.kind === 'user' && principal.email !== org.owner) {
      throw new ForbiddenError('Access denied: only the owner or a server administrator may delete an organization');
    }
    const scope = orgScope(id);
    let moved = 0;
    await this.storage.transaction(async () => {
      for (const device of await this.devices.list(callerAccess([scope]))) {
        const shares = device.shares.filter((s) => s.scope !== scope);
        const ownerScope = device.ownerScope === scope ? userScope(org.owner) : device.ownerScope;
        if (ownerScope !== device.ownerScope) moved += 1;
        await this.devices.update(SYSTEM_ACCESS, device.id, { ownerScope, shares, allowedScopes: shares.map((s) => s.scope) });
      }
      await this.registrations.rejectPendingForOwnerScope(scope, actorName(principal));
      await this.memberships.removeOrg(id);
      await this.orgs.delete(id);
    });
    await this.audit.record(principal, 'org.deleted', { orgId: id, details: `deleted organization ${id}; ${moved} device(s) moved to ${org.owner}` });
    return { status: 'deleted' };
  }

  /** Renames the id everywhere it appears: memberships, device owners and device shares. */
  async rename(principal: Principal, id: string, newId: string): Promise<{ status: 'updated' }> {
    checkOrgId(newId, 'new_id');
    const org = await this.authorize(principal, id, 'admin');
    if (newId === id) return { status: 'updated' };
    const [from, to] = [orgScope(id), orgScope(newId)];
    await this.storage.transaction(async () => {
      await this.orgs.insert({ ...org, id: newId });
      await this.orgs.delete(id);
      await this.memberships.renameOrg(id, newId);
      await this.registrations.renameOwnerScope(from, to);
      for (const device of await this.devices.list(callerAccess([from]))) {
        const shares = device.shares.map((s) => (s.scope === from ? { ...s, scope: to } : s));
        await this.devices.update(SYSTEM_ACCESS, device.id, { ownerScope: device.ownerScope === from ? to : device.ownerScope, shares, allowedScopes: shares.map((s) => s.scope) });
      }
    });
    await this.audit.record(principal, 'org.renamed', { orgId: newId, details: `renamed organization ${id} to ${newId}` });
    return { status: 'updated' };
  }

  async members(principal: Principal, orgId: string): Promise<OrgMemberResult[]> {
    await this.authorize(principal, orgId, 'member');
    return (await this.memberships.forOrg(orgId)).map((m) => ({ email: m.email, role: toToolRole(m.role) }));
  }

  async addMember(principal: Principal, orgId: string, rawEmail: string, role: ToolRole): Promise<{ status: 'added' }> {
    const org = await this.authorize(principal, orgId, 'admin');
    const email = checkEmail(rawEmail);
    if (email === org.owner && role !== 'admin') throw new ConflictError('The organization owner is always an admin');
    const existing = await this.memberships.find(orgId, email);
    if (existing) await this.memberships.setRole(orgId, email, toOrgRole(role));
    else await this.memberships.add(orgId, email, toOrgRole(role), this.clock.now());
    await this.audit.record(principal, existing ? 'org.member_updated' : 'org.member_added', { orgId, details: `${email} as ${role}` });
    return { status: 'added' };
  }

  /** Admins remove anyone but the owner; any member may leave. */
  async removeMember(principal: Principal, orgId: string, rawEmail: string): Promise<{ status: 'removed' }> {
    const email = checkEmail(rawEmail);
    const leaving = principal.kind === 'user' && principal.email === email;
    const org = await this.authorize(principal, orgId, leaving ? 'member' : 'admin');
    if (email === org.owner) throw new ConflictError('The organization owner cannot be removed');
    await this.storage.transaction(async () => {
      if (!(await this.memberships.remove(orgId, email))) throw new NotFoundError(`${email} is not a member of ${orgId}`);
      if (!this.config.allowCrossOrgDeviceSharing) await this.dropSharesOnOrgDevices(orgId, userScope(email));
    });
    await this.audit.record(principal, 'org.member_removed', { orgId, details: `removed ${email}` });
    return { status: 'removed' };
  }

  /**
   * Without cross-organization sharing, a personal share on an organization's device exists only
   * because its holder was a member; leaving the organization ends it.
   */
  private async dropSharesOnOrgDevices(orgId: string, scope: string): Promise<void> {
    for (const device of await this.devices.list(callerAccess([orgScope(orgId)]))) {
      if (device.ownerScope !== orgScope(orgId) || !device.allowedScopes.includes(scope)) continue;
      const shares = device.shares.filter((s) => s.scope !== scope);
      await this.devices.update(SYSTEM_ACCESS, device.id, { shares, allowedScopes: shares.map((s) => s.scope) });
    }
  }

  /**
   * An organization is invisible (not found) to users outside it; members lacking the role
   * are refused. Server administrators (admin key, admin users) manage every organization.
   */
  async authorize(principal: Principal, orgId: string, need: Need): Promise<OrgRecord> {
    const org = isOrgId(orgId ?? '') ? await this.orgs.findById(orgId) : null;
    const role = principal.kind === 'user' ? membershipRole(principal, orgId) : null;
    if (!org || (role === null && !isAdmin(principal))) throw new NotFoundError('Organization not found');
    if (need === 'admin' && role !== 'admin' && !isAdmin(principal)) throw new ForbiddenError('Access denied: organization admin role required');
    return org;
  }
}

function checkOrgId(id: string, field: string): void {
  if (typeof id !== 'string' || !isOrgId(id)) {
    throw new InvalidInputError(`${field} must be 2-63 characters of lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`);
  }
}

function checkEmail(raw: string): string {
  const email = normalizeEmail(typeof raw === 'string' ? raw : '');
  if (!isEmail(email)) throw new InvalidInputError('email must be a valid e-mail address');
  return email;
}
