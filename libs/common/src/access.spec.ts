import { AccessSubject, AccessTarget, canApproveFor, effectiveDeviceRole } from './access';
import { OrgRole } from './roles';

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
