/**
 * The dashboard across replicas on NATS, in a real browser (Debian's chromium through
 * playwright-core): the page is served by replica A (in this process), the runtime's tunnel is
 * held by replica B (a real server process). On A's page the device shows online, its terminal and
 * Run command reach it through B, and when the runtime stops A's page shows it offline from the
 * event stream (which crosses replicas through the bus), without a reload and without a console error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openTab, signInThroughProvider, Tab } from './fixtures/browser';
import { eventually } from './fixtures/eventually';
import { onFreePort } from './fixtures/free-port';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { registerDevice } from './fixtures/test-server';

const ALICE = 'alice@web-replicas.test';
const DEVICE = 'wrp-1';

/** The terminal's visible rows as text (xterm's DOM renderer draws spaces as no-break spaces). */
const screen = (page: Page) => page.locator('.xterm-rows > div').evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));

describe('web dashboard across replicas', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let runtime: RuntimeProcess | null = null;
  let browser: Browser;
  let tab: Tab;
  let page: Page;
  let home: string;

  beforeAll(async () => {
    // Replica A serves the page: its address is the dashboard's redirect URI, known to the provider before either starts
    // (another suite may take the port meanwhile: then both start again on another).
    nats = await startNatsServer();
    ({ idp, replicas } = await onFreePort(async (portA) => {
      const provider = await startIdentityProvider({ webRedirectUris: [`http://127.0.0.1:${portA}/`] });
      try {
        return { idp: provider, replicas: await startReplicaPair(provider, nats.url, {}, { REST_PORT: String(portA) }) };
      } catch (error) {
        await provider.stop();
        throw error;
      }
    }));
    const alice = await replicas.a.login(ALICE);
    const apiKey = await registerDevice(replicas.a, DEVICE, `user:${ALICE}`, alice);
    home = mkdtempSync(join(tmpdir(), 'svc-web-replicas-'));
    // The runtime's tunnel is held by B.
    runtime = startRuntimeProcess(['run'], { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_SERVER_URL: replicas.b.url, SVC_CA_FILE: replicas.a.tunnel!.caFile, SVC_API_KEY: apiKey });
    await runtime.waitForLog('tunnel up');
    await eventually('A to see the device B holds', async () => (await replicas.a.api.get(`/devices/${DEVICE}/status`, alice)).body.status === 'online');
    browser = await launchBrowser();
  });
  // The browser first (its open stream would hold A's close), then the runtime, then the replicas.
  afterAll(async () => {
    await tab?.close();
    await browser?.close();
    if (runtime) {
      runtime.kill('SIGTERM');
      await runtime.exited;
    }
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(tab?.consoleErrors ?? []).toEqual([]);
  });

  it('signs in on A and shows the device that B holds online', async () => {
    tab = await openTab(browser, 1280);
    page = tab.page;
    page.setDefaultTimeout(45_000);
    await signInThroughProvider(page, replicas.a.url, ALICE);
    await page.locator(`tr[data-device="${DEVICE}"] td[data-label="Status"]`, { hasText: /^online$/ }).waitFor();
  });

  it('opens the terminal on A and reads back what the shell on the device (through B) prints', async () => {
    await page.goto(`${replicas.a.url}/#/devices/${DEVICE}`);
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
    expect(replicas.b.output()).toMatch(new RegExp(`peer stream \\w+ on device ${DEVICE} for ${ALICE.replace('.', '\\.')}`));
  });

  it('runs a command on A through B: its output and exit code 0', async () => {
    await page.getByRole('textbox', { name: 'Command' }).fill('sh -c "echo across-$((40+2))"');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('[data-exit-code="0"]').waitFor();
    expect(await page.getByLabel('Output').textContent()).toBe('across-42\n');
    expect(replicas.b.output().match(new RegExp(`peer stream \\w+ on device ${DEVICE} `, 'g'))?.length).toBeGreaterThanOrEqual(2);
  });

  it('shows the device offline on A, live, when the runtime held by B stops', async () => {
    await page.getByRole('link', { name: '← Devices' }).click();
    const status = page.locator(`tr[data-device="${DEVICE}"] td[data-label="Status"]`);
    await status.filter({ hasText: /^online$/ }).waitFor();
    await eventually('the live indicator', async () => (await page.locator('.top .live').getAttribute('data-state')) === 'live');
    // A marker on window survives only if the page is not reloaded.
    await page.evaluate("window.__marker = 'set before'");
    runtime!.kill('SIGTERM');
    await runtime!.exited;
    runtime = null;
    const exitedAt = Date.now();
    await status.filter({ hasText: /^offline$/ }).waitFor();
    process.stdout.write(`web-replicas: offline shown on A ${Date.now() - exitedAt} ms after the runtime held by B exited\n`);
    await expect(page.evaluate<boolean>("window.__marker === 'set before'")).resolves.toBe(true);
  });
});
