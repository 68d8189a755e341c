/**
 * The web dashboard in a real browser (Debian's chromium through playwright-core) against a real
 * server, identity provider and runtime: sign-in with code + PKCE through the provider's pages,
 * the device table (status, owner, last seen, uptime), approving a device after comparing its
 * fingerprint, host, platform, requester and source address, running a command, what a
 * viewer is offered, sign-out; no console error anywhere (token renewal: web-dashboard-tokens.e2e-spec.ts). Screenshots at 1280 and 390 px
 * (UPDATE_SCREENSHOTS=1 writes them to docs/screenshots).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { signInThroughProvider, Tab, useBrowserFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';
import { expectRefused } from './fixtures/expect-error';
import type { FleetSpec } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { pollRegistration, registerDevice, startTestServer, submitRegistration } from './fixtures/test-server';

const ALICE = 'alice@web.test';
const VICTOR = 'victor@web.test';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const spec: FleetSpec = {
  users: { alice: ALICE, victor: VICTOR },
  orgs: { acme: { owner: 'alice', members: { victor: 'viewer' } } },
  devices: {
    'dev-1': { owner: 'alice', hostname: 'kitchen-pi', shares: { victor: 'viewer' }, runtime: true },
    'dev-2': { owner: 'alice', hostname: 'garage-gateway' },
  },
};

describe('web dashboard', () => {
  const runtimes: { rt: RuntimeProcess; dir: string }[] = [];
  const dirs: string[] = [];
  // The browser first (its keep-alive connections would hold the server's close), then the runtimes, then the fleet.
  const web = useBrowserFleet(spec, {
    beforeFleetClose: async () => {
      for (const { rt, dir } of runtimes) {
        rt.kill('SIGTERM');
        await rt.exited;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const tab = () => web.openTab(1280);
  const signIn = (page: Page, email: string) => signInThroughProvider(page, web.fleet.server.url, email);
  const shoot = (page: Page, name: string) => web.shoot(page, name);

  let aliceTab: Tab;
  let alice: Page;

  it('is served at / with a strict Content-Security-Policy, and the API keeps its paths', async () => {
    const { url } = web.fleet.server;
    const index = await fetch(`${url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`connect-src 'self' ${new URL(web.fleet.idp.issuer).origin}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|<style/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    expect((await fetch(`${url}/devices`)).status).toBe(401);
    const unknown = await fetch(`${url}/no-such-path`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ statusCode: 404, requestId: expect.any(String) });
    expect((await fetch(`${url}/assets/missing.js`)).status).toBe(404);
  });

  it('without a built dashboard, / says so and the API still answers', async () => {
    const bare = await startTestServer(web.fleet.idp, { WEB_DIR: join(tmpdir(), 'svc-no-such-web-dir') });
    try {
      const index = await fetch(`${bare.url}/`);
      expect(index.status).toBe(404);
      expect(await index.text()).toMatch(/dashboard is not built/);
      expect((await fetch(`${bare.url}/auth/config`)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });

  it('signs in through the identity provider and lists the devices with status, owner, last seen and uptime', async () => {
    aliceTab = await tab();
    alice = aliceTab.page;
    await signIn(alice, ALICE);
    const online = alice.locator('tr[data-device="dev-1"]');
    await expect(online.getByRole('cell').nth(0).textContent()).resolves.toBe('online');
    await expect(online.getByRole('link').textContent()).resolves.toBe('kitchen-pi');
    await expect(online.getByRole('cell').nth(2).textContent()).resolves.toBe(`user:${ALICE}`);
    await expect(online.getByRole('cell').nth(4).textContent()).resolves.toMatch(/^\d+[dhms]/);
    await expect(alice.locator('tr[data-device="dev-2"] td').first().textContent()).resolves.toBe('offline');
    // Last seen: the connected device a moment ago, the one that never connected never (as POST /devices/status answers).
    const statuses = (await web.fleet.user('alice').run('device_status', { devices: ['dev-1', 'dev-2'] })) as { results: { device: string; last_seen: string | null }[] };
    const lastSeen = Object.fromEntries(statuses.results.map((r) => [r.device, r.last_seen]));
    expect(Date.parse(lastSeen['dev-1']!)).toBeGreaterThan(Date.now() - 3_600_000);
    expect(lastSeen['dev-2']).toBeNull();
    await expect(online.getByRole('cell').nth(3).textContent()).resolves.toMatch(/^(just now|\d+ s ago|\d+ min ago)$/);
    await expect(alice.locator('tr[data-device="dev-2"]').getByRole('cell').nth(3).textContent()).resolves.toBe('never');
    await shoot(alice, 'devices');

    // Filters are GET /devices's own: status, owner, name prefix.
    await alice.getByLabel('Status').selectOption('offline');
    await alice.getByRole('button', { name: 'Apply' }).click();
    await eventually('only the offline device', async () => (await alice.locator('tbody tr').count()) === 1 && (await alice.locator('tr[data-device="dev-2"]').count()) === 1);
    await alice.getByLabel('Status').selectOption('');
    await alice.getByLabel('Name starts with').fill('nothing-like-this');
    await alice.getByRole('button', { name: 'Apply' }).click();
    await alice.getByText('No device matches these filters.').waitFor();
    await alice.getByLabel('Name starts with').fill('');
    await alice.getByRole('button', { name: 'Apply' }).click();
    await alice.locator('tr[data-device="dev-1"]').waitFor();
  });

  it('approves a pending device after comparing the fingerprint it shows with the one the runtime prints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-web-rt-'));
    const rt = startRuntimeProcess(['run', '--poll-interval', '100ms', '--owner', `user:${ALICE}`, '--device-id', 'web-new'], {
      HOME: dir,
      SVC_CONFIG_DIR: join(dir, 'svc'),
      SVC_SERVER_URL: web.fleet.server.url,
      SVC_CA_FILE: web.fleet.server.tunnel!.caFile,
    });
    runtimes.push({ rt, dir });
    const [, requestId] = await rt.waitForLine('stdout', /request (req_[A-Za-z0-9_-]+)\)/);
    const [, printed] = await rt.waitForLine('stdout', /Key fingerprint: ([A-Z2-7]{4}(?:-[A-Z2-7]{4}){3})$/);

    await alice.goto(`${web.fleet.server.url}/#/pending`);
    const request = alice.locator(`[data-request="${requestId}"]`);
    await request.waitFor();
    const shown = await request.locator('.fingerprint').first().textContent();
    expect(shown).toBe(printed);
    // What else an approver compares: the runtime's host and platform, who asked and from where.
    await expect(request.locator('.request-name').textContent()).resolves.toBe(hostname());
    const terms = await request.locator('.facts dt').allTextContents();
    const values = await request.locator('.facts dd').allTextContents();
    expect(Object.fromEntries(terms.map((term, i) => [term, values[i]]))).toEqual({
      Fingerprint: printed,
      Platform: platform(),
      'Requested by': 'web-new (127.0.0.1)',
      'Source address': '127.0.0.1',
      Owner: `user:${ALICE}`,
    });
    await shoot(alice, 'pending');

    await request.getByRole('button', { name: 'Approve…' }).click();
    // The confirmation repeats the fingerprint and takes the keyboard's focus: Enter approves.
    const confirmation = request.getByRole('group', { name: 'Confirm approval' });
    await expect(confirmation.locator('.fingerprint').textContent()).resolves.toBe(printed);
    // The focus moves after the confirmation is drawn: Enter before that would press nothing.
    await eventually('the confirmation focused', () => confirmation.getByRole('button', { name: 'Yes, approve' }).evaluate((button) => button.matches(':focus')));
    await alice.keyboard.press('Enter');
    await alice.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
    await rt.waitForLine('stdout', /Approved: device web-new is registered/);
    await rt.waitForLog('tunnel up');

    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.getByLabel('Status').selectOption('online');
    await eventually('web-new online in the table', async () => {
      await alice.getByRole('button', { name: 'Apply' }).click();
      return (await alice.locator('tr[data-device="web-new"] td').first().textContent()) === 'online';
    });
  });

  it('runs a command on a device and shows its output and exit code', async () => {
    await alice.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await alice.getByRole('heading', { name: 'kitchen-pi' }).waitFor();
    await expect(alice.getByLabel('Status').locator('dd').nth(4).textContent()).resolves.toMatch(/^(TCP|QUIC)/);
    await alice.getByRole('textbox', { name: 'Command' }).fill('echo hi');
    await alice.getByRole('textbox', { name: 'Command' }).press('Enter');
    const exit = alice.locator('[data-exit-code]');
    await exit.waitFor();
    expect(await exit.getAttribute('data-exit-code')).toBe('0');
    expect(await alice.getByLabel('Output').textContent()).toBe('hi\n');
    await shoot(alice, 'device');

    await alice.getByRole('textbox', { name: 'Command' }).fill('sh -c "echo oops >&2; exit 3"');
    await alice.getByRole('button', { name: 'Run', exact: true }).click();
    await eventually('exit code 3', async () => (await exit.getAttribute('data-exit-code')) === '3');
    expect(await alice.locator('.output .stderr').textContent()).toBe('oops\n');
  });

  it('uploads a file into a device directory and downloads it again, bytes equal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-web-files-'));
    dirs.push(dir);
    await alice.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await alice.getByLabel('Directory').fill(dir);
    await alice.getByRole('button', { name: 'Open', exact: true }).click();
    await alice.getByText('This directory is empty.').waitFor();

    const content = randomBytes(300_000);
    await alice.getByLabel('Upload a file').setInputFiles({ name: 'payload.bin', mimeType: 'application/octet-stream', buffer: content });
    await alice.getByRole('status').filter({ hasText: 'Uploaded payload.bin' }).waitFor();
    expect(sha256(readFileSync(join(dir, 'payload.bin')))).toBe(sha256(content));

    const [download] = await Promise.all([alice.waitForEvent('download'), alice.getByRole('button', { name: 'Download payload.bin' }).click()]);
    expect(download.suggestedFilename()).toBe('payload.bin');
    expect(sha256(readFileSync(await download.path()))).toBe(sha256(content));
  });

  it('lists organizations and their members', async () => {
    await alice.goto(`${web.fleet.server.url}/#/orgs`);
    await alice.getByRole('button', { name: 'acme' }).click();
    await alice.getByText(VICTOR).waitFor();
    await shoot(alice, 'orgs');
  });

  it('pages through the devices with GET /devices\'s cursor', async () => {
    for (let i = 0; i < 25; i++) await registerDevice(web.fleet.server, `bulk-${String(i).padStart(2, '0')}`, `user:${ALICE}`, web.fleet.user('alice').caller);
    const all = ((await web.fleet.user('alice').run('devices_list', { limit: 1000 })) as unknown as { items: { id: string }[] }).items.map((d) => d.id);
    expect(all.length).toBeGreaterThan(25);

    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.getByRole('button', { name: 'Refresh' }).click();
    const ids = () => alice.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-device')));
    await eventually('a full first page', async () => (await ids()).length === 25, { describe: async () => `${JSON.stringify(await ids())}\n${await alice.locator('main').textContent()}` });
    const first = await ids();
    await alice.getByRole('button', { name: 'Next' }).click();
    await alice.getByText('Page 2').waitFor();
    await eventually('the second page', async () => (await ids()).length === all.length - 25);
    const second = await ids();
    expect([...first, ...second].sort()).toEqual([...all].sort());
    expect(await alice.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await alice.getByRole('button', { name: 'Previous' }).click();
    await eventually('the first page again', async () => JSON.stringify(await ids()) === JSON.stringify(first));
  });

  it('rejects the selected registration requests at once', async () => {
    const unwanted = [await submitRegistration(web.fleet.server, 'stranger-1', `user:${ALICE}`), await submitRegistration(web.fleet.server, 'stranger-2', `user:${ALICE}`)];
    const kept = await submitRegistration(web.fleet.server, 'stranger-3', `user:${ALICE}`);
    await alice.goto(`${web.fleet.server.url}/#/orgs`);
    await alice.goto(`${web.fleet.server.url}/#/pending`);
    for (const { requestId } of unwanted) await alice.locator(`[data-request="${requestId}"]`).getByRole('checkbox').check();
    await alice.getByRole('button', { name: 'Reject selected (2)' }).click();
    await alice.getByRole('status').filter({ hasText: 'Rejected 2 request(s).' }).waitFor();
    await eventually('the rejected requests gone from the page', async () => (await alice.locator('[data-request]').count()) === 1);
    expect(await alice.locator(`[data-request="${kept.requestId}"]`).count()).toBe(1);
    for (const { requestId } of unwanted) expect((await pollRegistration(web.fleet.server, requestId)).body).toEqual({ status: 'rejected' });
  });

  /** The focused control as `row: tag name` (runs in the page: a string, as the test's own TypeScript knows no DOM). */
  const FOCUSED = `(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return '';
    const row = element.closest('[data-request], [data-device]');
    const name = element.getAttribute('aria-label') ?? element.textContent?.trim() ?? '';
    return (row ? (row.dataset.request ?? row.dataset.device) + ': ' : '') + element.tagName.toLowerCase() + ' ' + name;
  })()`;

  /** Where Tab takes the focus, from the top of the page until it comes round again: `row: name` per control. */
  async function tabOrder(page: Page, max = 150): Promise<string[]> {
    await page.evaluate('document.activeElement?.blur()');
    const seen: string[] = [];
    for (let i = 0; i < max; i++) {
      await page.keyboard.press('Tab');
      const here = await page.evaluate<string>(FOCUSED);
      if (seen.length > 0 && here === seen[0]) break;
      seen.push(here);
    }
    return seen;
  }

  it('reaches every control of the pending approvals and of the device table with the keyboard alone', async () => {
    const { requestId } = await submitRegistration(web.fleet.server, 'keyboard-1', `user:${ALICE}`);
    await alice.goto(`${web.fleet.server.url}/#/pending`);
    await alice.locator(`[data-request="${requestId}"]`).waitFor();
    const pending = await tabOrder(alice);
    expect(pending).toEqual(expect.arrayContaining([`${requestId}: input Select keyboard-1`, `${requestId}: button Approve…`, `${requestId}: button Reject`]));
    // Rejected with keys only: Tab to its Reject button, Enter.
    for (let i = 0; i < 150 && (await alice.evaluate<string>(FOCUSED)) !== `${requestId}: button Reject`; i++) await alice.keyboard.press('Tab');
    expect(await alice.evaluate<string>(FOCUSED)).toBe(`${requestId}: button Reject`);
    await alice.keyboard.press('Enter');
    await eventually('the request rejected', async () => (await pollRegistration(web.fleet.server, requestId)).body.status === 'rejected');

    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.locator('tr[data-device]').first().waitFor();
    const devices = await tabOrder(alice);
    expect(devices).toEqual(expect.arrayContaining(['button Apply', 'button Refresh']));
    // Every row's link and checkbox (whichever devices the page shows): none is left to the pointer.
    const rows = await alice.locator('tr[data-device]').all();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const id = await row.getAttribute('data-device');
      const controls = await row.locator('a, button, input, select').count();
      expect(controls).toBeGreaterThan(0);
      expect(devices.filter((entry) => entry.startsWith(`${id}: `))).toHaveLength(controls);
    }
  });

  it('offers a viewer no run controls, and the server refuses the viewer anyway', async () => {
    const victor = (await tab()).page;
    await signIn(victor, VICTOR);
    await victor.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await victor.getByRole('heading', { name: 'kitchen-pi' }).waitFor();
    expect(await victor.locator('[data-role]').textContent()).toBe('viewer');
    expect(await victor.getByRole('textbox', { name: 'Command' }).count()).toBe(0);
    expect(await victor.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0);
    expect(await victor.getByRole('heading', { name: 'Files' }).count()).toBe(0);
    await victor.getByText('may view this device only').waitFor();

    const viewer = web.fleet.user('victor');
    await expectRefused(viewer.run('device_exec', { device: 'dev-1', command: ['echo', 'hi'] }), 403);

    // What the page asked: AccessPolicy's answer; a device not shared with the viewer does not exist for them.
    expect(await viewer.run('device_capabilities', { device: 'dev-1' })).toEqual({ device_id: 'dev-1', role: 'viewer', owner: false, capabilities: ['device:view'] });
    await expectRefused(viewer.run('device_capabilities', { device: 'dev-2' }), 404);
    await expectRefused(web.fleet.client({}).run('device_capabilities', { device: 'dev-1' }), 401);
    const owner = await web.fleet.user('alice').run('device_capabilities', { device: 'dev-1' });
    expect(owner).toMatchObject({ role: 'admin', owner: true, capabilities: expect.arrayContaining(['device:exec', 'device:write-files', 'device:own']) });
  });

  it('shows an unknown device as the API answers it: message and request id', async () => {
    await alice.goto(`${web.fleet.server.url}/#/devices/no-such-device`);
    const alert = alice.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/not found/i);
    expect(await alert.locator('.request-id code').textContent()).toMatch(/^[A-Za-z0-9._-]{8,}$/);
    // The browser itself logs the refused request; that line, and only it, is expected here.
    const expected = /Failed to load resource: the server responded with a status of 404/;
    expect(aliceTab.consoleErrors.filter((line) => expected.test(line)).length).toBeGreaterThan(0);
    aliceTab.consoleErrors.splice(0, aliceTab.consoleErrors.length, ...aliceTab.consoleErrors.filter((line) => !expected.test(line)));
  });

  it('signs out: tokens forgotten, the provider session ended, the next sign-in asks who you are', async () => {
    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.getByRole('button', { name: 'Sign out' }).click();
    await alice.getByRole('button', { name: 'Yes, sign me out' }).click();
    await alice.waitForURL(`${web.fleet.server.url}/`);
    await alice.getByRole('button', { name: 'Sign in' }).waitFor();
    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.getByRole('button', { name: 'Sign in' }).click();
    await alice.getByLabel('E-mail address').waitFor();
  });
});
