import {
  AccessSubject,
  AccessTarget,
  canApproveFor,
  deviceGrant,
  deviceIdClaimBlocker,
  effectiveDeviceRole,
  grantAllows,
  OrgDecision,
  orgDecision,
  OrgSubject,
  OwnerChangeRefusal,
  ownerChangeRefusal,
} from './access';
import { Capability, OrgCapability, OrgRole } from './roles';

const ALICE = 'alice@example.com';
const alice = (...memberships: [string, OrgRole][]): AccessSubject => ({
  email: ALICE,
  memberships: memberships.map(([orgId, role]) => ({ orgId, role })),
});
const device = (ownerScope: string, ...shares: [string, OrgRole][]): AccessTarget => ({
  ownerScope,
  shares: shares.map(([scope, role]) => ({ scope, role })),
});

describe('effectiveDeviceRole', () => {
  it.each<[string, AccessSubject, AccessTarget, OrgRole | null]>([
    // owner
    ['the owning user is admin', alice(), device(`user:${ALICE}`), 'admin'],
    ['ownership matches the e-mail case-insensitively', { email: 'Alice@Example.com', memberships: [] }, device(`user:${ALICE}`), 'admin'],
    ['a weaker user share does not demote the owner', alice(), device(`user:${ALICE}`, [`user:${ALICE}`, 'viewer']), 'admin'],
    // user shares
    ['a user share as viewer', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'viewer']), 'viewer'],
    ['a user share as member', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'member']), 'member'],
    ['a user share as admin', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'admin']), 'admin'],
    // owning organization
    ['org owner, member of it', alice(['acme', 'member']), device('org:acme'), 'member'],
    ['org owner, viewer of it', alice(['acme', 'viewer']), device('org:acme'), 'viewer'],
    ['org owner, admin of it', alice(['acme', 'admin']), device('org:acme'), 'admin'],
    // organization shares: the weaker of share and membership
    ['org share admin, membership viewer', alice(['partners', 'viewer']), device('org:acme', ['org:partners', 'admin']), 'viewer'],
    ['org share viewer, membership admin', alice(['partners', 'admin']), device('org:acme', ['org:partners', 'viewer']), 'viewer'],
    ['org share member, membership admin', alice(['partners', 'admin']), device('org:acme', ['org:partners', 'member']), 'member'],
    ['org share admin, membership admin', alice(['partners', 'admin']), device('org:acme', ['org:partners', 'admin']), 'admin'],
    // several paths: the strongest wins
    ['user share beats a weaker org path', alice(['acme', 'viewer']), device('org:acme', [`user:${ALICE}`, 'member']), 'member'],
    ['org membership beats a weaker user share', alice(['acme', 'admin']), device('org:acme', [`user:${ALICE}`, 'viewer']), 'admin'],
    [
      'the strongest of two org shares',
      alice(['p1', 'admin'], ['p2', 'member']),
      device('org:acme', ['org:p1', 'viewer'], ['org:p2', 'admin']),
      'member',
    ],
    ['owner of a device also shared with an org', alice(['partners', 'viewer']), device(`user:${ALICE}`, ['org:partners', 'viewer']), 'admin'],
    // unrelated
    ['another user\'s device', alice(), device('user:bob@example.com'), null],
    ['shared with someone else', alice(['other', 'admin']), device('user:bob@example.com', ['user:carol@example.com', 'admin'], ['org:partners', 'admin']), null],
    ['another organization\'s device', alice(['other', 'admin']), device('org:acme'), null],
    ['a look-alike org id', alice(['acme', 'admin']), device('org:acme2'), null],
  ])('%s', (_what, subject, target, expected) => {
    expect(effectiveDeviceRole(subject, target)).toBe(expected);
  });
});

describe('canApproveFor', () => {
  it.each<[string, AccessSubject, string, boolean]>([
    ['the user for their own scope', alice(), `user:${ALICE}`, true],
    ['the user, whatever the case of their token e-mail', { email: 'ALICE@example.com', memberships: [] }, `user:${ALICE}`, true],
    ['a user for someone else', alice(), 'user:bob@example.com', false],
    ['an org admin for the org', alice(['acme', 'admin']), 'org:acme', true],
    ['an org member for the org', alice(['acme', 'member']), 'org:acme', false],
    ['an org viewer for the org', alice(['acme', 'viewer']), 'org:acme', false],
    ['an admin of another org', alice(['other', 'admin']), 'org:acme', false],
    ['an admin of one org, member of the target', alice(['other', 'admin'], ['acme', 'member']), 'org:acme', false],
    ['anyone for a malformed scope', alice(['acme', 'admin']), 'acme', false],
  ])('%s → %s', (_what, subject, scope, expected) => {
    expect(canApproveFor(subject, scope)).toBe(expected);
  });
});

describe('device capabilities, ownership included', () => {
  // `device:own` follows ownership only: an admin share or an org role on a shared device never has it.
  it.each<[string, AccessSubject, AccessTarget, Capability, boolean]>([
    ['the owning user owns', alice(), device(`user:${ALICE}`), 'device:own', true],
    ['an admin of the owning org owns', alice(['acme', 'admin']), device('org:acme'), 'device:own', true],
    ['an editor of the owning org does not own', alice(['acme', 'member']), device('org:acme'), 'device:own', false],
    ['an editor of the owning org with a personal admin share manages', alice(['acme', 'member']), device('org:acme', [`user:${ALICE}`, 'admin']), 'device:manage', true],
    ['... but does not own', alice(['acme', 'member']), device('org:acme', [`user:${ALICE}`, 'admin']), 'device:own', false],
    ['an admin share manages', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'admin']), 'device:manage', true],
    ['an admin share does not own', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'admin']), 'device:own', false],
    ['an admin of an org the device is shared with does not own', alice(['p', 'admin']), device('org:acme', ['org:p', 'admin']), 'device:own', false],
    ['a viewer share views', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'viewer']), 'device:view', true],
    ['a viewer share does not exec', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'viewer']), 'device:exec', false],
  ])('%s', (_what, subject, target, capability, expected) => {
    const grant = deviceGrant(subject, target);
    expect(grant !== null && grantAllows(grant, capability)).toBe(expected);
  });

  it('grants nothing on an unreachable device', () => {
    expect(deviceGrant(alice(['other', 'admin']), device('user:bob@example.com'))).toBeNull();
  });
});

describe('ownerChangeRefusal', () => {
  it.each<[string, AccessSubject, AccessTarget, string, OwnerChangeRefusal | null]>([
    ['the owner into an org it administers', alice(['acme', 'admin']), device(`user:${ALICE}`), 'org:acme', null],
    ['an org admin takes the org\'s device personally', alice(['acme', 'admin']), device('org:acme'), `user:${ALICE}`, null],
    ['an admin of two orgs moves between them', alice(['a1', 'admin'], ['a2', 'admin']), device('org:a1'), 'org:a2', null],
    ['to the current owner', alice(), device(`user:${ALICE}`), `user:${ALICE}`, 'same-owner'],
    ['an admin share holder to itself', alice(), device('user:bob@example.com', [`user:${ALICE}`, 'admin']), `user:${ALICE}`, 'not-owner'],
    ['an editor takes the org\'s device personally', alice(['acme', 'member']), device('org:acme'), `user:${ALICE}`, 'not-owner'],
    ['an org editor with a personal admin share', alice(['acme', 'member']), device('org:acme', [`user:${ALICE}`, 'admin']), `user:${ALICE}`, 'not-owner'],
    ['a stranger', alice(), device('user:bob@example.com'), `user:${ALICE}`, 'not-owner'],
    ['the owner into an org it only edits', alice(['acme', 'member']), device(`user:${ALICE}`), 'org:acme', 'target-not-yours'],
    ['the owner gives it to another user', alice(), device(`user:${ALICE}`), 'user:bob@example.com', 'target-not-yours'],
    ['the owner to a malformed scope', alice(), device(`user:${ALICE}`), 'acme', 'target-not-yours'],
  ])('%s → %s', (_what, subject, target, toScope, expected) => {
    expect(ownerChangeRefusal(subject, target, toScope)).toBe(expected);
  });
});

describe('orgDecision', () => {
  const ORG = { id: 'acme', owner: 'boss@example.com' };
  const who = (email: string | null, serverAdmin: boolean, ...memberships: [string, OrgRole][]): OrgSubject => ({
    email,
    serverAdmin,
    memberships: memberships.map(([orgId, role]) => ({ orgId, role })),
  });
  it.each<[string, OrgSubject, OrgCapability, OrgDecision]>([
    ['a viewer sees the organization', who(ALICE, false, ['acme', 'viewer']), 'org:view', 'allowed'],
    ['a viewer lists its devices', who(ALICE, false, ['acme', 'viewer']), 'org:devices', 'allowed'],
    ['an editor may not manage', who(ALICE, false, ['acme', 'member']), 'org:manage', 'forbidden'],
    ['an editor may not move devices', who(ALICE, false, ['acme', 'member']), 'org:move-devices', 'forbidden'],
    ['an admin manages', who(ALICE, false, ['acme', 'admin']), 'org:manage', 'allowed'],
    ['an admin moves devices', who(ALICE, false, ['acme', 'admin']), 'org:move-devices', 'allowed'],
    ['an admin may not delete', who(ALICE, false, ['acme', 'admin']), 'org:delete', 'forbidden'],
    ['the owner deletes', who('boss@example.com', false, ['acme', 'admin']), 'org:delete', 'allowed'],
    ['a non-member does not see it', who(ALICE, false, ['other', 'admin']), 'org:view', 'hidden'],
    ['a non-member does not see its devices', who(ALICE, false), 'org:devices', 'hidden'],
    ['a server admin sees it', who(ALICE, true), 'org:view', 'allowed'],
    ['a server admin manages it', who(ALICE, true), 'org:manage', 'allowed'],
    ['a server admin deletes it', who(ALICE, true), 'org:delete', 'allowed'],
    ['a server admin does not list its devices', who(ALICE, true), 'org:devices', 'forbidden'],
    ['a server admin does not move its devices', who(ALICE, true), 'org:move-devices', 'forbidden'],
    ['a server admin who is a viewer lists them as a viewer', who(ALICE, true, ['acme', 'viewer']), 'org:devices', 'allowed'],
    ['the admin key manages', who(null, true), 'org:manage', 'allowed'],
    ['the admin key does not list devices', who(null, true), 'org:devices', 'forbidden'],
  ])('%s → %s', (_what, subject, capability, expected) => {
    expect(orgDecision(subject, ORG, capability)).toBe(expected);
  });
});

describe('deviceIdClaimBlocker (who may take a device id that is not registered yet)', () => {
  const waiting = (...owners: string[]) => owners.map((ownerScope, i) => ({ id: `r${i}`, ownerScope }));
  it.each<[string, AccessSubject, string, ReturnType<typeof waiting>, string | null]>([
    ['the only request', alice(), 'r0', waiting(`user:${ALICE}`), null],
    ['the oldest request, with a stranger\'s after it', alice(), 'r0', waiting(`user:${ALICE}`, 'user:mallory@x.test'), null],
    ['a newer request behind a stranger\'s older one', alice(), 'r1', waiting('user:mallory@x.test', `user:${ALICE}`), 'r0'],
    ['a newer request behind the approver\'s own older one', alice(), 'r1', waiting(`user:${ALICE}`, `user:${ALICE}`), null],
    ['behind an older request for an organization the approver administers', alice(['acme', 'admin']), 'r1', waiting('org:acme', `user:${ALICE}`), null],
    ['behind an older request for an organization the approver is only a member of', alice(['acme', 'member']), 'r1', waiting('org:acme', `user:${ALICE}`), 'r0'],
  ])('%s', (_what, subject, requestId, list, expected) => {
    expect(deviceIdClaimBlocker(subject, requestId, list)?.id ?? null).toBe(expected);
  });
});
