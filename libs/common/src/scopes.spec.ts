import { canonicalEmail, isEmail, isScope, normalizeEmail, orgScope, parseScope, ParsedScope, scopeForPrincipalName, userScope } from './scopes';

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

/**
 * The one e-mail rule (token claims, admin API, memberships, shares, owner scopes): an ASCII
 * address, validated as given, then lower-cased. Anything else is refused, never repaired.
 */
describe('canonicalEmail / isEmail', () => {
  const CASES: [string, string, string | null][] = [
    ['plain', 'alice@example.com', 'alice@example.com'],
    ['upper case folds to lower case', 'Alice@Example.COM', 'alice@example.com'],
    ['short', 'a@b.io', 'a@b.io'],
    ['dots, plus, underscore, percent, hyphen', 'a.b+tag_1%x-y@sub.example.co.uk', 'a.b+tag_1%x-y@sub.example.co.uk'],
    ['hyphenated and punycode domain', 'x@my-host.xn--p1ai', 'x@my-host.xn--p1ai'],
    ['254 characters', `${'a'.repeat(242)}@example.com`, `${'a'.repeat(242)}@example.com`],
    ['255 characters', `${'a'.repeat(243)}@example.com`, null],
    ['fullwidth look-alike letter', '\uFF41lice@example.com', null],
    ['Cyrillic look-alike in the domain', 'alice@ex\u0430mple.com', null],
    ['Kelvin sign (toLowerCase turns it into k)', '\u212Aate@example.com', null],
    ['dotted capital I (toLowerCase adds a combining dot)', 'AL\u0130CE@example.com', null],
    ['non-ASCII letter', 'jos\u00e9@example.com', null],
    ['slash', 'a/b@example.com', null],
    ['leading space', ' alice@example.com', null],
    ['trailing space', 'alice@example.com ', null],
    ['trailing newline', 'alice@example.com\n', null],
    ['trailing CR', 'alice@example.com\r', null],
    ['NUL', 'alice\u0000@example.com', null],
    ['inner space', 'alice example@example.com', null],
    ['no @', 'alice', null],
    ['no local part', '@example.com', null],
    ['no domain', 'alice@', null],
    ['two @', 'alice@@example.com', null],
    ['dotless domain', 'alice@localhost', null],
    ['one-letter top-level domain', 'alice@example.c', null],
    ['underscore in the domain', 'alice@exa_mple.com', null],
    ['leading dot', '.alice@example.com', null],
    ['trailing dot in the local part', 'alice.@example.com', null],
    ['double dot', 'al..ice@example.com', null],
    ['domain label starting with a hyphen', 'alice@-example.com', null],
    ['domain label ending with a hyphen', 'alice@example-.com', null],
    ['quotes', '"alice"@example.com', null],
    ['empty', '', null],
  ];

  it.each(CASES)('%s: %j → %j', (_what, raw, canonical) => {
    expect(canonicalEmail(raw)).toBe(canonical);
    expect(isEmail(raw)).toBe(canonical !== null);
  });

  it.each(CASES.filter(([, , canonical]) => canonical !== null))('%s: the canonical form is a fixed point', (_what, raw) => {
    const canonical = canonicalEmail(raw)!;
    expect(canonicalEmail(canonical)).toBe(canonical);
    expect(normalizeEmail(raw)).toBe(canonical);
  });

  it.each(CASES.filter(([, raw]) => raw.includes('@')))('%s: owner scopes and share targets follow the same rule', (_what, raw, canonical) => {
    expect(scopeForPrincipalName(raw)).toBe(canonical === null ? null : `user:${canonical}`);
    expect(parseScope(`user:${raw}`)).toEqual(canonical !== null && canonical === raw ? { kind: 'user', email: raw } : null);
  });
});

describe('scope builders', () => {
  it.each([
    ['Alice@Example.COM', 'alice@example.com', 'user:alice@example.com'],
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

