/**
 * GET /auth/config advertises the OAuth client the CLI signs in as from the server's
 * configuration (OAUTH_CLIENT_ID), not from the development identity provider's own constant.
 * Not on useFleet: each test starts its own server with another OAuth configuration; raw GET /auth/config (no catalog entry).
 */
import { startIdentityProvider, IdentityProviderHandle } from './fixtures/oidc';
import { startTestServer, TestServer } from './fixtures/test-server';

describe('GET /auth/config', () => {
  let idp: IdentityProviderHandle;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    idp = await startIdentityProvider();
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await idp?.stop();
  });

  async function authConfig(env: Record<string, string>): Promise<{ status: number; body: { oauth: Record<string, string> } }> {
    const server = await startTestServer(idp, env);
    servers.push(server);
    return server.api.get('/auth/config');
  }

  it('advertises OAUTH_CLIENT_ID as the CLI client', async () => {
    const res = await authConfig({ OAUTH_CLIENT_ID: 'acme-fleet-cli' });
    expect(res.status).toBe(200);
    expect(res.body.oauth).toEqual({ issuer: idp.issuer, audience: idp.audience, client_id: 'acme-fleet-cli', web_client_id: 'svc-web' });
  });

  it('advertises svc-cli when OAUTH_CLIENT_ID is unset', async () => {
    const res = await authConfig({});
    expect(res.body.oauth.client_id).toBe('svc-cli');
  });
});
