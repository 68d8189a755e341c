/**
 * The web dashboard's tokens in a real browser: the access token is renewed with the refresh
 * token before it expires, the provider rotates the refresh token, and the page goes on working;
 * signing out revokes the refresh token at the provider.
 */
import { signInThroughProvider, Tab, useBrowserFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';
import { DEFAULT_OAUTH_WEB_CLIENT_ID } from '../apps/server/src/config/server-variables';
import { refresh } from './fixtures/oidc';

describe('web dashboard sessions', () => {
  // Tokens live 65 s and the dashboard renews them 60 s before they expire: the first renewal comes after ~5 s.
  const web = useBrowserFleet({ identityProvider: { accessTokenTtlSeconds: 65 } });
  let opened: Tab;
  /** Every token grant the page made, in order. */
  const grants: { grant: string; refreshToken: string | undefined; accessToken: string }[] = [];

  it('renews the access token with the refresh token, which the provider rotates, and keeps working', async () => {
    opened = await web.openTab(1280);
    const page = opened.page;
    page.on('response', async (response) => {
      if (!response.url().endsWith('/token') || response.request().method() !== 'POST') return;
      const grant = new URLSearchParams(response.request().postData() ?? '').get('grant_type') ?? '';
      const body = (await response.json()) as { refresh_token?: string; access_token: string };
      grants.push({ grant, refreshToken: body.refresh_token, accessToken: body.access_token });
    });
    await signInThroughProvider(page, web.fleet.server.url, 'nadia@web.test');
    await page.getByText('No devices yet.').waitFor();

    await eventually('a refresh_token grant', () => grants.some((g) => g.grant === 'refresh_token'));
    const [code, renewal] = grants;
    expect(code.grant).toBe('authorization_code');
    expect(code.refreshToken).toEqual(expect.any(String));
    expect(renewal.refreshToken).toEqual(expect.any(String));
    expect(renewal.refreshToken).not.toBe(code.refreshToken);
    expect(renewal.accessToken).not.toBe(code.accessToken);

    // The page goes on with the renewed token.
    await page.getByRole('link', { name: 'Pending' }).click();
    await page.getByText('No registration is waiting.').waitFor();
    expect(opened.consoleErrors).toEqual([]);
  });

  it('signs out by revoking the refresh token: the provider refuses it afterwards', async () => {
    const page = opened.page;
    const revoked: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/token/revocation')) revoked.push(new URLSearchParams(request.postData() ?? '').get('token') ?? '');
    });
    // Right after a renewal, so that none is under way while signing out (they come every ~5 s).
    const seen = grants.length;
    await eventually('another renewal', () => grants.length > seen);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${web.fleet.server.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    const latest = grants[grants.length - 1].refreshToken!;
    await expect(refresh(web.fleet.idp, latest, DEFAULT_OAUTH_WEB_CLIENT_ID)).rejects.toThrow(/invalid_grant/);
    expect(revoked).toEqual([latest]);
    expect(opened.consoleErrors).toEqual([]);
  });
});
