import { Inject, Injectable } from '@nestjs/common';
import {
  AccountPendingApprovalError,
  AccountSubjectMismatchError,
  canonicalEmail,
  ConflictError,
  InvalidInputError,
  NotFoundError,
  OperationResults,
  orgScope,
  UserResult,
  userScope,
} from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { Clock } from '../common/clock';
import { OrgRecords } from '../orgs/records/org-records';
import { UsersRepository } from './users.repository';
import { UserRecord } from '../storage/records';
import { AuditService } from '../audit/audit.service';
import type { Principal, UserPrincipal } from '../auth/principal';
import { actorName } from '../auth/principal';
import type { TokenIdentity } from '../auth/token-identity';
import { Handles, OperationCall } from '../authorization/catalog-controller';

@Injectable()
export class UsersService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly users: UsersRepository,
    private readonly orgs: OrgRecords,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /**
   * Turns a validated token into a principal. The first sign-in creates the account (or finds
   * one the admin API created in advance) and binds it to the token's `sub` at its issuer; after
   * that, another `sub` with the same e-mail address is refused until an admin resets the binding.
   */
  async principalFor(identity: TokenIdentity): Promise<UserPrincipal> {
    const { email } = identity;
    const user = (await this.users.findByEmail(email)) ?? (await this.createOnFirstRequest(identity));
    // Before the approval check: someone else's token must not learn the account's state.
    await this.checkBinding(identity, user);
    if (!user.active) throw new AccountPendingApprovalError();
    const memberships = await this.orgs.membershipsOf(email);
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

  /** Who the server takes the caller for: the principal itself (the admin key's is `{kind: 'admin-key'}`). */
  @Handles('account_show')
  account({ principal }: OperationCall<'account_show', Principal>): OperationResults['account_show'] {
    return principal;
  }

  @Handles('users_list')
  async list({ input }: OperationCall<'users_list', Principal>): Promise<UserResult[]> {
    return (await this.users.list({ active: input.active })).map((u) => this.view(u));
  }

  @Handles('user_show')
  async show({ input }: OperationCall<'user_show', Principal>): Promise<UserResult> {
    const user = await this.users.findByEmail(this.checkedEmail(input.email));
    if (!user) throw new NotFoundError('User not found');
    return this.view(user);
  }

  @Handles('user_approve')
  async approve({ principal: actor, input }: OperationCall<'user_approve', Principal>): Promise<UserResult> {
    const email = this.checkedEmail(input.email);
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
  @Handles('user_admin_grant')
  async grantAdmin({ principal: actor, input }: OperationCall<'user_admin_grant', Principal>): Promise<UserResult> {
    const email = this.checkedEmail(input.email);
    const now = this.clock.now();
    const existing = await this.users.findByEmail(email);
    const user: UserRecord = existing
      ? { ...existing, admin: true, active: true, approvedAt: existing.approvedAt ?? now, approvedBy: existing.approvedBy ?? actorName(actor) }
      : { id: email, subject: null, subjectIssuer: null, active: true, admin: true, createdAt: now, approvedAt: now, approvedBy: actorName(actor) };
    if (existing) await this.users.update(email, { admin: true, active: true, approvedAt: user.approvedAt, approvedBy: user.approvedBy });
    else await this.users.insert(user);
    await this.audit.record(actor, 'user.admin_granted', { details: `granted admin to ${email}` });
    return this.view(user);
  }

  /**
   * Unbinds an account from its identity at the provider, for a person whose account there was
   * re-created (new `sub`): the next sign-in with the address binds it again.
   */
  @Handles('user_subject_reset')
  async resetSubject({ principal: actor, input }: OperationCall<'user_subject_reset', Principal>): Promise<UserResult> {
    const email = this.checkedEmail(input.email);
    const user = await this.users.findByEmail(email);
    if (!user) throw new NotFoundError('User not found');
    if (user.subject) {
      await this.users.update(email, { subject: null, subjectIssuer: null });
      await this.audit.record(actor, 'user.subject_reset', { details: `reset the identity binding of ${email}` });
    }
    return this.view(user);
  }

  private async createOnFirstRequest(identity: TokenIdentity): Promise<UserRecord> {
    const user: UserRecord = {
      id: identity.email,
      subject: identity.subject,
      subjectIssuer: identity.issuer,
      active: this.startsActive(identity.email),
      admin: false,
      createdAt: this.clock.now(),
      approvedAt: null,
      approvedBy: null,
    };
    try {
      await this.users.insert(user);
    } catch (err) {
      // Two first requests raced; the other one created (and bound) the account.
      if (err instanceof ConflictError) return (await this.users.findByEmail(identity.email))!;
      throw err;
    }
    return user;
  }

  private async checkBinding(identity: TokenIdentity, user: UserRecord): Promise<void> {
    const binding = bindingOf(user, identity);
    if (binding === 'this') return;
    if (binding === 'other') throw new AccountSubjectMismatchError();
    const expected = { subject: user.subject, subjectIssuer: user.subjectIssuer ?? null };
    if (await this.users.rebindSubject(user.id, expected, { subject: identity.subject, subjectIssuer: identity.issuer })) return;
    // Another sign-in bound the account between our read and our write: its binding stands.
    const current = await this.users.findByEmail(user.id);
    if (!current || bindingOf(current, identity) !== 'this') throw new AccountSubjectMismatchError();
  }

  private isAdminEmail(email: string): boolean {
    return this.config.adminEmails.includes(email);
  }

  private checkedEmail(raw: string): string {
    const email = canonicalEmail(raw ?? '');
    if (email === null) throw new InvalidInputError('email must be a valid e-mail address');
    return email;
  }

  private view(u: UserRecord): UserResult {
    return {
      email: u.id,
      active: u.active,
      admin: u.admin || this.isAdminEmail(u.id),
      created_at: u.createdAt.toISOString(),
      approved_at: u.approvedAt ? u.approvedAt.toISOString() : null,
    };
  }
}

/**
 * Whom the account is bound to, seen from a token. A `sub` means something only at its issuer, so
 * a binding made at another issuer (OAUTH_ISSUER changed since) counts as none: the operator
 * chose to trust the new issuer, and its first sign-in binds. Accounts bound before the issuer
 * was recorded were bound at the configured one, which is the token's.
 */
function bindingOf(user: UserRecord, identity: TokenIdentity): 'this' | 'other' | 'none' {
  if (!user.subject || (user.subjectIssuer ?? identity.issuer) !== identity.issuer) return 'none';
  return user.subject === identity.subject ? 'this' : 'other';
}
