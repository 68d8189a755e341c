import { VERIFIED_TOKEN_MAX_AGE_MS, VerifiedTokens } from './verified-tokens';
import type { TokenIdentity } from './token-identity';

const START = Date.UTC(2026, 0, 1);
const identity = (email: string, expiresInS: number): TokenIdentity => ({ issuer: 'https://idp.test', subject: email, email, tokenExpiresAt: START / 1000 + expiresInS });

describe('VerifiedTokens', () => {
  let now: number;
  let tokens: VerifiedTokens;
  beforeEach(() => {
    now = START;
    tokens = new VerifiedTokens(() => now, 3);
  });

  it('answers the identity of a token it verified, and nothing for another token', () => {
    tokens.remember('token-a', identity('a@x.test', 3600));
    expect(tokens.identityOf('token-a')?.email).toBe('a@x.test');
    expect(tokens.identityOf('token-b')).toBeUndefined();
    expect(tokens.identityOf('token-a ')).toBeUndefined();
  });

  it('forgets a token at its expiry (exp), so an expired token is checked again', () => {
    tokens.remember('token-a', identity('a@x.test', 30));
    now += 29_999;
    expect(tokens.identityOf('token-a')).toBeDefined();
    now += 1;
    expect(tokens.identityOf('token-a')).toBeUndefined();
  });

  it('forgets a token at most a minute after its check, however long it lives', () => {
    tokens.remember('token-a', identity('a@x.test', 86_400));
    now += VERIFIED_TOKEN_MAX_AGE_MS - 1;
    expect(tokens.identityOf('token-a')).toBeDefined();
    now += 1;
    expect(tokens.identityOf('token-a')).toBeUndefined();
  });

  it('does not keep a token already expired', () => {
    tokens.remember('token-a', identity('a@x.test', -1));
    expect(tokens.identityOf('token-a')).toBeUndefined();
  });

  it('holds a bounded number of tokens, forgetting the oldest first', () => {
    for (const name of ['a', 'b', 'c', 'd']) tokens.remember(`token-${name}`, identity(`${name}@x.test`, 3600));
    expect(tokens.identityOf('token-a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((name) => tokens.identityOf(`token-${name}`)?.email)).toEqual(['b@x.test', 'c@x.test', 'd@x.test']);
  });
});
