/**
 * The API documentation (`/docs`, Swagger UI) is served on the dashboard's origin, so it carries
 * the dashboard's protections: a Content-Security-Policy (scripts from this origin only), no
 * framing, no MIME sniffing. Checked on the page and its assets, and in a real browser (Debian's
 * chromium): Swagger UI renders the operations under that policy with no console error (a CSP
 * violation is one; the browser fixture fails the test on any).
 */
import { useBrowserFleet } from './fixtures/browser';

describe('API documentation (/docs)', () => {
  const web = useBrowserFleet({});

  it.each(['/docs', '/docs/', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/swagger-ui-init.js'])('%s has the security headers', async (path) => {
    const res = await fetch(`${web.fleet.server.url}${path}`);
    expect(res.status).toBe(200);
    const policy = new Map(res.headers.get('content-security-policy')!.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(Object.fromEntries(policy)).toMatchObject({ 'default-src': "'self'", 'script-src': "'self'", 'object-src': "'none'", 'frame-ancestors': "'none'", 'base-uri': "'none'" });
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('renders the operations in a browser under that policy, with no console error', async () => {
    const { page } = await web.openTab(1280);
    await page.goto(`${web.fleet.server.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('svc server');
  });
});
