import { isEmail, isScope, normalizeEmail, orgScope, parseScope, ParsedScope, scopeForPrincipalName, userScope } from './scopes';

describe('parseScope / isScope', () => {
  const CASES: [string, ParsedScope | null][] = [
    // user scopes: a valid e-mail in canonical (lower-case, trimmed) form
    ['user:alice@example.com', { kind: 'user', email: 'alice@example.com' }],
    ['user:a.b+tag_1%x@sub.example.co.uk', { kind: 'user', email: 'a.b+tag_1%x@sub.example.co.uk' }],
    ['user:Alice@example.com', null],
    ['user:alice@EXAMPLE.com', null],
    ['user: alice@example.com', null],
    ['user:alice@example.com ', null],
    ['user:alice', null],
    ['user:alice@localhost', null],
    ['user:alice@@example.com', null],
    ['user:alice@example.c', null],
    ['user:', null],
    [`user:${'a'.repeat(243)}@example.com`, null], // 255 characters: over the e-mail limit
    [`user:${'a'.repeat(242)}@example.com`, { kind: 'user', email: `${'a'.repeat(242)}@example.com` }],
    // org scopes: 2-63 characters, lower-case letters, digits, `.`, `_`, `-`, starting alphanumeric
    ['org:acme', { kind: 'org', orgId: 'acme' }],
    ['org:acme-corp.eu_1', { kind: 'org', orgId: 'acme-corp.eu_1' }],
    ['org:0x', { kind: 'org', orgId: '0x' }],
    [`org:${'a'.repeat(63)}`, { kind: 'org', orgId: 'a'.repeat(63) }],
    [`org:${'a'.repeat(64)}`, null],
    ['org:a', null],
    ['org:', null],
    ['org:Acme', null],
    ['org:-acme', null],
    ['org:.acme', null],
    ['org:acme corp', null],
    ['org:acme/x', null],
    ['org:acme@example.com', null],
    // neither format
    ['', null],
    ['alice@example.com', null],
    ['acme', null],
    ['USER:alice@example.com', null],
    ['Org:acme', null],
    ['team:acme', null],
    ['user;alice@example.com', null],
  ];

  it.each(CASES)('%j → %j', (value, expected) => {
    expect(parseScope(value)).toEqual(expected);
    expect(isScope(value)).toBe(expected !== null);
  });
});

describe('isEmail', () => {
  it.each<[string, boolean]>([
    ['alice@example.com', true],
    ['Alice@Example.COM', true],
    ['a@b.io', true],
    ['first.last@mail.example.org', true],
    ['alice', false],
    ['alice@', false],
    ['@example.com', false],
    ['alice@example', false],
    ['alice example@example.com', false],
    ['alice@exa_mple.com', false],
    [`${'a'.repeat(243)}@example.com`, false],
  ])('%j → %s', (value, expected) => {
    expect(isEmail(value)).toBe(expected);
  });
});

describe('scope builders', () => {
  it.each([
    [' Alice@Example.COM ', 'alice@example.com', 'user:alice@example.com'],
    ['bob@example.com', 'bob@example.com', 'user:bob@example.com'],
  ])('normalizes %j for comparison and for its scope', (email, normalized, scope) => {
    expect(normalizeEmail(email)).toBe(normalized);
    expect(userScope(email)).toBe(scope);
    expect(isScope(userScope(email))).toBe(true);
  });

  it('builds org scopes verbatim', () => {
    expect(orgScope('acme')).toBe('org:acme');
  });
});

describe('scopeForPrincipalName (email_or_org_id)', () => {
  it.each<[string, string | null]>([
    ['alice@example.com', 'user:alice@example.com'],
    ['Alice@Example.com', 'user:alice@example.com'],
    ['acme', 'org:acme'],
    ['acme-corp', 'org:acme-corp'],
    ['alice@', null],
    ['@acme', null],
    ['Acme', null],
    ['a', null],
    ['', null],
    ['org:acme', null],
  ])('%j → %j', (value, expected) => {
    expect(scopeForPrincipalName(value)).toBe(expected);
  });
});

