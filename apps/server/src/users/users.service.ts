import { Inject, Injectable } from '@nestjs/common';
import { AccountPendingApprovalError, ConflictError, InvalidInputError, isEmail, NotFoundError, normalizeEmail, orgScope, userScope } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { Clock } from '../common/clock';
import { UsersRepository } from '../storage/repositories/users.repository';
import { MembershipsRepository } from '../storage/repositories/memberships.repository';
import { UserRecord } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import type { Principal, UserPrincipal } from '../auth/principal';
import { actorName } from '../auth/principal';
import type { TokenIdentity } from '../auth/token-identity';

export interface UserView {
  email: string;
  active: boolean;
  admin: boolean;
  created_at: string;
  approved_at: string | null;
}

@Injectable()
export class UsersService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly users: UsersRepository,
    private readonly memberships: MembershipsRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** Turns a validated token into a principal; creates the account on its first request. */
  async principalFor(identity: TokenIdentity): Promise<UserPrincipal> {
    const email = normalizeEmail(identity.email);
    const user = (await this.users.findByEmail(email)) ?? (await this.createOnFirstRequest(email, identity.subject));
    if (!user.active) throw new AccountPendingApprovalError();
    const memberships = await this.memberships.forUser(email);
    return {
      kind: 'user',
      email,
      scopes: [userScope(email), ...memberships.map((m) => orgScope(m.orgId))],
      memberships: memberships.map(({ orgId, role }) => ({ orgId, role })),
      admin: this.isAdminEmail(email) || user.admin,
    };
  }

  /** Approval rules: USERS_NEED_APPROVAL, then auto-accepted domains and admin addresses. */
  startsActive(email: string): boolean {
    if (!this.config.usersNeedApproval) return true;
    const domain = email.slice(email.lastIndexOf('@') + 1);
    return this.config.userAutoAcceptDomains.includes(domain) || this.isAdminEmail(email);
  }

  async list(active?: boolean): Promise<UserView[]> {
    return (await this.users.list({ active })).map((u) => this.view(u));
  }

  async approve(actor: Principal, rawEmail: string): Promise<UserView> {
    const email = this.checkedEmail(rawEmail);
    const user = await this.users.findByEmail(email);
    if (!user) throw new NotFoundError('User not found');
    if (user.active) throw new ConflictError('User is already active');
    const now = this.clock.now();
    await this.users.update(email, { active: true, approvedAt: now, approvedBy: actorName(actor) });
    await this.audit.record(actor, 'user.approved', { details: `approved ${email}` });
    return this.view({ ...user, active: true, approvedAt: now });
  }

  /**
   * Bootstraps admin access: grants admin to an address, creating an active account in advance
   * when the person has not signed in yet.
   */
  async grantAdmin(actor: Principal, rawEmail: string): Promise<UserView> {
    const email = this.checkedEmail(rawEmail);
    const now = this.clock.now();
    const existing = await this.users.findByEmail(email);
    const user: UserRecord = existing
      ? { ...existing, admin: true, active: true, approvedAt: existing.approvedAt ?? now, approvedBy: existing.approvedBy ?? actorName(actor) }
      : { id: email, subject: null, active: true, admin: true, createdAt: now, approvedAt: now, approvedBy: actorName(actor) };
    if (existing) await this.users.update(email, { admin: true, active: true, approvedAt: user.approvedAt, approvedBy: user.approvedBy });
    else await this.users.insert(user);
    await this.audit.record(actor, 'user.admin_granted', { details: `granted admin to ${email}` });
    return this.view(user);
  }

  private async createOnFirstRequest(email: string, subject: string): Promise<UserRecord> {
    const user: UserRecord = {
      id: email,
      subject,
      active: this.startsActive(email),
      admin: false,
      createdAt: this.clock.now(),
      approvedAt: null,
      approvedBy: null,
    };
    try {
      await this.users.insert(user);
    } catch (err) {
      // Two first requests raced; the other one created the account.
      if (err instanceof ConflictError) return (await this.users.findByEmail(email))!;
      throw err;
    }
    return user;
  }

  private isAdminEmail(email: string): boolean {
    return this.config.adminEmails.includes(email);
  }

  private checkedEmail(raw: string): string {
    const email = normalizeEmail(raw ?? '');
    if (!isEmail(email)) throw new InvalidInputError('email must be a valid e-mail address');
    return email;
  }

  private view(u: UserRecord): UserView {
    return {
      email: u.id,
      active: u.active,
      admin: u.admin || this.isAdminEmail(u.id),
      created_at: u.createdAt.toISOString(),
      approved_at: u.approvedAt ? u.approvedAt.toISOString() : null,
    };
  }
}
