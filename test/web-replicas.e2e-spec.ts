/**
 * The dashboard across replicas on NATS, in a real browser (Debian's chromium through
 * playwright-core): the page is served by replica A (in this process), the runtime's tunnel is
 * held by replica B (a real server process). On A's page the device shows online, its terminal and
 * Run command reach it through B, and when the runtime stops A's page shows it offline from the
 * event stream (which crosses replicas through the bus), without a reload and without a console error.
 */
import type { Page } from 'playwright-core';
import { useBrowserReplicaFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@web-replicas.test';
const DEVICE = 'wrp-1';

/** The terminal's visible rows as text (xterm's DOM renderer draws spaces as no-break spaces). */
const screen = (page: Page) => page.locator('.xterm-rows > div').evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));

describe('web dashboard across replicas', () => {
  // Replica A serves the page; the runtime's tunnel is held by B.
  const web = useBrowserReplicaFleet({ users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice', runtime: { on: 'b' } } } });
  let page: Page;
  const fleet = () => web.fleet;

  beforeAll(async () => {
    await eventually('A to see the device B holds', async () => (await fleet().user('alice').on('a').route('device_status.one', { device: DEVICE })).status === 'online');
  });

  it('signs in on A and shows the device that B holds online', async () => {
    page = (await web.signedIn(ALICE)).page;
    await page.locator(`tr[data-device="${DEVICE}"] td[data-label="Status"]`, { hasText: /^online$/ }).waitFor();
  });

  it('opens the terminal on A and reads back what the shell on the device (through B) prints', async () => {
    await page.goto(`${fleet().a.url}/#/devices/${DEVICE}`);
    await page.getByRole('heading', { name: 'Terminal' }).waitFor();
    await page.locator('[data-terminal-state="idle"]').waitFor();
    await page.getByRole('button', { name: 'Open terminal' }).click();
    await page.locator('[data-terminal-state="open"]').waitFor();
    await page.locator('.xterm').click();
    await page.keyboard.type('echo hi');
    await page.keyboard.press('Enter');
    await eventually('hi on the terminal after "echo hi"', async () => {
      const text = await screen(page);
      const at = text.lastIndexOf('echo hi');
      return at >= 0 && /^hi$/m.test(text.slice(at + 'echo hi'.length));
    }, { describe: () => screen(page) });
    // End the shell, so that nothing is left open when the runtime stops below.
    await page.keyboard.type('exit');
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-shell-exit-code]').getAttribute('data-shell-exit-code')).resolves.toBe('0');
    // B relayed it (A's bridge reached the device over the peer hop).
    expect(fleet().b.output()).toMatch(new RegExp(`peer stream \\w+ on device ${DEVICE} for ${ALICE.replace('.', '\\.')}`));
  });

  it('runs a command on A through B: its output and exit code 0', async () => {
    await page.getByRole('textbox', { name: 'Command' }).fill('sh -c "echo across-$((40+2))"');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('[data-exit-code="0"]').waitFor();
    expect(await page.getByLabel('Output').textContent()).toBe('across-42\n');
    expect(fleet().b.output().match(new RegExp(`peer stream \\w+ on device ${DEVICE} `, 'g'))?.length).toBeGreaterThanOrEqual(2);
  });

  it('shows the device offline on A, live, when the runtime held by B stops', async () => {
    await page.getByRole('link', { name: '← Devices' }).click();
    const status = page.locator(`tr[data-device="${DEVICE}"] td[data-label="Status"]`);
    await status.filter({ hasText: /^online$/ }).waitFor();
    await eventually('the live indicator', async () => (await page.locator('.top .live').getAttribute('data-state')) === 'live');
    // A marker on window survives only if the page is not reloaded.
    await page.evaluate("window.__marker = 'set before'");
    const runtime = fleet().device(DEVICE).runtime!;
    runtime.kill('SIGTERM');
    await runtime.exited;
    const exitedAt = Date.now();
    await status.filter({ hasText: /^offline$/ }).waitFor();
    process.stdout.write(`web-replicas: offline shown on A ${Date.now() - exitedAt} ms after the runtime held by B exited\n`);
    await expect(page.evaluate<boolean>("window.__marker === 'set before'")).resolves.toBe(true);
  });
});
