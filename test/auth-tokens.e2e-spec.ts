/**
 * Access tokens from a real identity provider against the server's JWT strategy: device-flow,
 * refreshed, ES256 and skewed tokens, e-mails from the token or from userinfo, and the
 * development provider's own limits. Not on useFleet: the strategy runs in a bare Nest module (no
 * svc server) behind identity providers with their own token settings; raw requests on purpose.
 */
import { Controller, Get, INestApplication, Req, UseGuards } from '@nestjs/common';
import { AuthGuard, PassportModule } from '@nestjs/passport';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import { statSync } from 'node:fs';
import { JWT_STRATEGY, JwtStrategy } from '../apps/server/src/auth/jwt.strategy';
import { AllExceptionsFilter } from '../apps/server/src/common/http-exception.filter';
import { SERVER_CONFIG, ServerConfig } from '../apps/server/src/config/server-config';
import { assertDevProviderAllowed } from '../apps/server/src/dev-idp/dev-identity-provider';
import { findForm, HttpSession } from './fixtures/http-session';
import {
  accessTokenClaims,
  decodeJwt,
  deviceGrantLogin,
  discover,
  IdentityProviderHandle,
  refresh,
  signTokenWithProviderKey,
  signTokenWithSecret,
  signTokenWithUnknownKey,
  startIdentityProvider,
  tamperSignature,
  unsignedToken,
} from './fixtures/oidc';
import { startStubIssuer, StubIssuerHandle } from './fixtures/oidc-stub-issuer';

// The module object passport-jwt calls (an ES namespace import would be a copy that a spy cannot reach).
const jsonwebtoken: typeof import('jsonwebtoken') = require('jsonwebtoken');

@Controller('whoami')
class WhoAmIController {
  @Get()
  @UseGuards(AuthGuard(JWT_STRATEGY))
  whoami(@Req() req: { user: unknown }): unknown {
    return req.user;
  }
}

/** A Nest app holding only JwtStrategy and the real error filter, guarded by AuthGuard('jwt'). */
async function startApp(oauth: { issuer: string; audience: string }): Promise<{ app: INestApplication; call(token?: string): Promise<{ status: number; body: any }> }> {
  const moduleRef = await Test.createTestingModule({
    imports: [PassportModule],
    controllers: [WhoAmIController],
    providers: [JwtStrategy, { provide: SERVER_CONFIG, useValue: { oauth } as ServerConfig }],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new AllExceptionsFilter());
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/whoami`;
  return {
    app,
    call: async (token) => {
      const res = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
      return { status: res.status, body: await res.json() };
    },
  };
}

const now = () => Math.floor(Date.now() / 1000);

describe('access tokens from a real identity provider', () => {
  let idp: IdentityProviderHandle;
  let server: Awaited<ReturnType<typeof startApp>>;
  const claims = (overrides: Record<string, unknown> = {}) => accessTokenClaims(idp, 'carol@example.com', overrides);

  beforeAll(async () => {
    idp = await startIdentityProvider();
    server = await startApp({ issuer: idp.issuer, audience: idp.audience });
  });
  afterAll(async () => {
    await server?.app.close();
    await idp?.stop();
  });

  it('accepts a token from the device flow and reports its e-mail', async () => {
    const tokens = await deviceGrantLogin(idp, 'Alice@Example.com');
    expect(decodeJwt(tokens.access_token).header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const { status, body } = await server.call(tokens.access_token);
    expect(status).toBe(200);
    expect(body).toEqual({ issuer: idp.issuer, subject: 'alice@example.com', email: 'alice@example.com', tokenExpiresAt: decodeJwt(tokens.access_token).payload.exp });
  });

  it('reports a mixed-case e-mail claim in its canonical lower-case form', async () => {
    const { status, body } = await server.call(signTokenWithProviderKey(idp, claims({ email: 'Carol@Example.COM' })));
    expect(status).toBe(200);
    expect(body.email).toBe('carol@example.com');
  });

  // Each of these used to become an account that the rest of the API then refused to name, or,
  // worse, was "repaired" into someone else's address (trimmed, or the Kelvin sign lower-cased to k).
  it.each([
    ['a fullwidth look-alike letter', '\uFF41lice@example.com'],
    ['a slash', 'a/b@example.com'],
    ['a leading space', ' alice@example.com'],
    ['a trailing newline', 'alice@example.com\n'],
    ['the Kelvin sign', '\u212Aate@example.com'],
    ['no domain', 'alice@'],
  ])('refuses an e-mail claim with %s with 403', async (_name, email) => {
    const { status, body } = await server.call(signTokenWithProviderKey(idp, claims({ email })));
    expect(status).toBe(403);
    expect(body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN', message: expect.stringMatching(/e-mail address .*not one this server accepts/) });
  });

  it('accepts a refreshed token, and the used refresh token is spent', async () => {
    const first = await deviceGrantLogin(idp, 'bob@example.com');
    const second = await refresh(idp, first.refresh_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await server.call(second.access_token)).body.email).toBe('bob@example.com');
    await expect(refresh(idp, first.refresh_token)).rejects.toThrow(/invalid_grant/);
  });

  it('accepts an ES256 token and one expired less than the 30 s skew allowance ago', async () => {
    expect((await server.call(signTokenWithProviderKey(idp, claims(), { alg: 'ES256' }))).status).toBe(200);
    expect((await server.call(signTokenWithProviderKey(idp, claims({ iat: now() - 3610, exp: now() - 10 })))).status).toBe(200);
  });

  it('checks a token once: the same token again is answered from memory, any other token is checked', async () => {
    const verify = jest.spyOn(jsonwebtoken, 'verify');
    try {
      const token = signTokenWithProviderKey(idp, claims({ email: 'dora@example.com' }));
      expect((await server.call(token)).body.email).toBe('dora@example.com');
      expect((await server.call(token)).body.email).toBe('dora@example.com');
      expect(verify).toHaveBeenCalledTimes(1);
      expect((await server.call(tamperSignature(token))).status).toBe(401);
      expect(verify).toHaveBeenCalledTimes(2);
    } finally {
      verify.mockRestore();
    }
  });

  it.each([
    ['expired beyond the skew allowance', () => signTokenWithProviderKey(idp, claims({ iat: now() - 3700, exp: now() - 60 }))],
    ['without exp', () => signTokenWithProviderKey(idp, claims({ exp: undefined }))],
    ['not valid yet', () => signTokenWithProviderKey(idp, claims({ nbf: now() + 300 }))],
    ['for another audience', () => signTokenWithProviderKey(idp, claims({ aud: 'https://other.example.test' }))],
    ['from another issuer', () => signTokenWithProviderKey(idp, claims({ iss: 'https://evil.example.test/' }))],
    ['whose issuer lacks the trailing slash', () => signTokenWithProviderKey(idp, claims({ iss: idp.issuer.replace(/\/$/, '') }))],
    ['with a tampered signature', () => tamperSignature(signTokenWithProviderKey(idp, claims()))],
    ['with a tampered payload', () => {
      const [h, , s] = signTokenWithProviderKey(idp, claims()).split('.');
      return `${h}.${Buffer.from(JSON.stringify(claims({ email: 'admin@example.com' }))).toString('base64url')}.${s}`;
    }],
    ['signed by an unknown key', () => signTokenWithUnknownKey(claims())],
    ['signed by an unknown key under a known kid', () => signTokenWithUnknownKey(claims(), { kid: decodeJwt(signTokenWithProviderKey(idp, {})).header.kid as string })],
    ['with alg none', () => unsignedToken(claims())],
    ['HS256 with some secret', () => signTokenWithSecret(claims(), 'some-shared-secret')],
    ['HS256 with the public key as secret', () => signTokenWithProviderKey(idp, claims(), { alg: 'HS256' })],
    ['whose e-mail the provider marks unverified', () => signTokenWithProviderKey(idp, claims({ email_verified: false }))],
    ['whose e-mail the provider marks unverified as a string', () => signTokenWithProviderKey(idp, claims({ email_verified: 'false' }))],
    ['that is garbage', () => 'not-a-jwt'],
    ['that is three garbage segments', () => 'a.b.c'],
  ])('refuses a token %s with 401', async (_name, token) => {
    const { status, body } = await server.call(token());
    expect(status).toBe(401);
    expect(body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
  });

  it('refuses a request without Authorization header with 401', async () => {
    expect((await server.call()).status).toBe(401);
  });

  it("cannot use the dev provider's own userinfo with its JWT access tokens (hence the stub issuer below)", async () => {
    const tokens = await deviceGrantLogin(idp, 'dave@example.com');
    const res = await fetch((await discover(idp)).userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(401);
  });
});

describe('e-mail from the userinfo endpoint when the token has no email claim', () => {
  let stub: StubIssuerHandle;
  let server: Awaited<ReturnType<typeof startApp>>;
  const tokenFor = (sub: string) => signTokenWithProviderKey(stub, accessTokenClaims(stub, sub, { email: undefined }));

  beforeAll(async () => {
    stub = await startStubIssuer();
    server = await startApp({ issuer: stub.issuer, audience: stub.audience });
  });
  afterAll(async () => {
    await server?.app.close();
    await stub?.stop();
  });

  it('asks userinfo once per subject and remembers the answer', async () => {
    stub.userinfo.set('user-1', { sub: 'user-1', email: 'erin@example.com' });
    for (let i = 0; i < 2; i += 1) {
      const { status, body } = await server.call(tokenFor('user-1'));
      expect(status).toBe(200);
      expect(body).toMatchObject({ subject: 'user-1', email: 'erin@example.com' });
    }
    expect(stub.userinfoCalls.filter((s) => s === 'user-1')).toHaveLength(1);
  });

  it.each([
    ['userinfo has no email either', 'user-2', { sub: 'user-2' }],
    ['userinfo answers for another subject', 'user-3', { sub: 'someone-else', email: 'mallory@example.com' }],
    ['userinfo refuses the token', 'user-4', undefined],
  ])('refuses the token with a clear 401 when %s', async (_name, sub, answer) => {
    if (answer) stub.userinfo.set(sub, answer);
    const { status, body } = await server.call(tokenFor(sub));
    expect(status).toBe(401);
    expect(body.message).toMatch(/no email claim/);
  });

  it.each([
    ['false', false],
    ['"false"', 'false'],
  ])('refuses an address userinfo marks unverified (email_verified: %s) with 401, as the token path does, every time', async (_name, verified) => {
    const sub = `unverified-${String(verified)}`;
    stub.userinfo.set(sub, { sub, email: 'ursula@example.com', email_verified: verified });
    for (let i = 0; i < 2; i += 1) {
      const { status, body } = await server.call(tokenFor(sub));
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(/marks this e-mail address as unverified/) });
    }
  });

  it('accepts an address userinfo marks verified', async () => {
    stub.userinfo.set('verified-1', { sub: 'verified-1', email: 'Vera@Example.com', email_verified: true });
    expect((await server.call(tokenFor('verified-1'))).body).toMatchObject({ subject: 'verified-1', email: 'vera@example.com' });
  });

  it('refuses with 403 an address from userinfo that the API would refuse', async () => {
    stub.userinfo.set('slash-1', { sub: 'slash-1', email: 'a/b@example.com' });
    const { status, body } = await server.call(tokenFor('slash-1'));
    expect(status).toBe(403);
    expect(body.message).toMatch(/not one this server accepts/);
  });
});

describe('development identity provider', () => {
  it('refuses to run in production', () => {
    expect(() => assertDevProviderAllowed(false)).toThrow(/cannot run in production \(STAGING=0\)/);
    expect(() => assertDevProviderAllowed(true)).not.toThrow();
  });

  it('keeps its keys private, honours the access token lifetime and rejects malformed e-mails', async () => {
    const idp = await startIdentityProvider({ accessTokenTtlSeconds: 120, audience: 'svc-api' });
    try {
      expect(statSync(idp.keysFile).mode & 0o777).toBe(0o600);
      const endpoints = await discover(idp);
      const auth = await fetch(endpoints.device_authorization_endpoint, {
        method: 'POST',
        body: new URLSearchParams({ client_id: 'svc-cli', scope: 'openid email' }),
      }).then((r) => r.json() as Promise<Record<string, string>>);
      const browser = new HttpSession();
      let page = await browser.get(auth.verification_uri_complete);
      page = await browser.submit(page.url, findForm(page.body));
      page = await browser.submit(page.url, findForm(page.body, 'op.deviceConfirmForm'));
      expect(page.body).toMatch(/no password is checked/);
      page = await browser.submit(page.url, findForm(page.body), { email: 'not an e-mail' });
      expect(page.status).toBe(400);
      expect(page.body).toMatch(/is not a valid e-mail address/);

      const tokens = await deviceGrantLogin(idp, 'frank@example.com');
      const { payload } = decodeJwt(tokens.access_token);
      expect(tokens.expires_in).toBe(120);
      expect(payload).toMatchObject({ aud: 'svc-api', email: 'frank@example.com', iss: idp.issuer });
      expect(Number(payload.exp) - Number(payload.iat)).toBe(120);
    } finally {
      await idp.stop();
    }
  });
});
