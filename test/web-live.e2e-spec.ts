/**
 * The dashboard's live updates in a real browser (Debian's chromium through playwright-core)
 * against a real server, identity provider and runtime processes: the device table follows a
 * runtime stopping and starting again, the pending page shows a new registration, and the header's
 * indicator follows the stream dropping and resuming from Last-Event-ID, all without reloading the
 * page (a marker on `window` survives, no navigation happens) and without a console error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { EventStreams } from '../apps/server/src/events/event-streams.service';
import { FleetEvents } from '../apps/server/src/events/fleet-events';
import { signInThroughProvider, Tab, useBrowserFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { submitRegistration } from './fixtures/test-server';

const ALICE = 'alice@live.test';
/** The bound: the table shows a stopped runtime offline within this, with no reload. */
const WITHIN_MS = 2_000;
const WINDOW = 8;

describe('web dashboard: live updates', () => {
  let tab: Tab;
  let page: Page;
  let runtime: RuntimeProcess | null = null;
  let navigations = 0;
  const dirs: string[] = [];

  // The browser first (its open stream would hold the server's close), then the runtime, then the fleet.
  const web = useBrowserFleet(
    {
      users: { alice: ALICE },
      devices: { 'live-1': { owner: 'alice', hostname: 'porch-pi' } },
      relay: true,
      // A small window, so that a client away for a few events is told to reset.
      env: { EVENTS_WINDOW: String(WINDOW) },
    },
    { beforeFleetClose: () => stopRuntime() },
  );
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function startRuntime(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'svc-web-live-'));
    dirs.push(dir);
    runtime = startRuntimeProcess(['run'], {
      HOME: dir,
      SVC_CONFIG_DIR: join(dir, 'svc'),
      SVC_SERVER_URL: web.fleet.server.url,
      SVC_CA_FILE: web.fleet.server.tunnel!.caFile,
      SVC_API_KEY: web.fleet.device('live-1').apiKey,
    });
    await runtime.waitForLog('tunnel up');
  }

  /** Sends SIGTERM to the runtime at once; resolves when it has exited. */
  function stopRuntime(): Promise<void> {
    const stopping = runtime;
    if (!stopping) return Promise.resolve();
    runtime = null;
    stopping.kill('SIGTERM');
    return stopping.exited.then(() => undefined);
  }

  const statusCell = () => page.locator('tr[data-device="live-1"] td').first();
  const liveState = () => page.locator('.top .live').getAttribute('data-state');
  /** Set once after sign-in: a page reload would lose it. */
  const stillSamePage = () => page.evaluate<boolean>("window.__liveMarker === 'set before'");

  it('signs in, shows the device online, and the header says the page is live', async () => {
    await startRuntime();
    tab = await web.openTab(1280);
    page = tab.page;
    await signInThroughProvider(page, web.fleet.server.url, ALICE);
    await eventually('the device online in the table', async () => (await statusCell().textContent()) === 'online');
    await eventually('the indicator live', async () => (await liveState()) === 'live');
    await page.evaluate("window.__liveMarker = 'set before'");
    // A document loaded (a reload, a navigation away); following a hash link loads none.
    page.on('load', () => navigations++);
  });

  it(`shows a stopped runtime offline within ${WITHIN_MS / 1000} s, and online again when it comes back, without a reload`, async () => {
    // The clock starts at the SIGTERM: the runtime's own shutdown counts toward the bound.
    const signalledAt = Date.now();
    const stopped = stopRuntime();
    // A locator (not waitForFunction: the page's CSP forbids evaluating strings) waits for the row to change.
    await page.locator('tr[data-device="live-1"] td[data-label="Status"]', { hasText: /^offline$/ }).waitFor({ timeout: WITHIN_MS });
    const tookMs = Date.now() - signalledAt;
    process.stdout.write(`web-live: offline shown ${tookMs} ms after SIGTERM to the runtime\n`);
    expect(tookMs).toBeLessThanOrEqual(WITHIN_MS);
    await stopped;
    await expect(page.locator('tr[data-device="live-1"] td[data-label="Uptime"]').textContent()).resolves.toBe('—');

    await startRuntime();
    await eventually('the device online again', async () => (await statusCell().textContent()) === 'online');
    await expect(stillSamePage()).resolves.toBe(true);
    expect(navigations).toBe(0);
  });

  it('shows a new registration on the pending page as it arrives, without a reload', async () => {
    await page.getByRole('link', { name: 'Pending' }).click();
    await page.getByRole('heading', { name: 'Pending registrations' }).waitFor();
    await page.getByText('No registration is waiting.').waitFor();

    const { requestId, fingerprint } = await submitRegistration(web.fleet.server, 'live-new', `user:${ALICE}`, { hostname: 'barn-cam' });
    const request = page.locator(`[data-request="${requestId}"]`);
    await request.waitFor();
    await expect(request.locator('.fingerprint').first().textContent()).resolves.toBe(fingerprint);
    await expect(stillSamePage()).resolves.toBe(true);
    // Navigating between pages changes the hash only: the document stays.
    expect(page.url()).toMatch(/#\/pending$/);
  });

  it('says "reconnecting" when the server drops the stream, then resumes from Last-Event-ID: what happened meanwhile shows, no list reload', async () => {
    await page.getByRole('link', { name: 'Devices' }).click();
    await eventually('the device online in the table', async () => (await statusCell().textContent()) === 'online');
    await eventually('the indicator live', async () => (await liveState()) === 'live');
    // Every state the indicator takes from now on, recorded in the page (a poll could miss a short one).
    await page.evaluate(`(() => {
      const live = document.querySelector('.top .live');
      window.__liveStates = [];
      new MutationObserver(() => window.__liveStates.push(live.getAttribute('data-state'))).observe(live, { attributes: true, attributeFilter: ['data-state'] });
    })()`);
    const listLoads: string[] = [];
    const resumes: (string | undefined)[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path === '/devices') listLoads.push(request.url());
      if (path === '/events') resumes.push(request.headers()['last-event-id']);
    });

    // The server ends every open stream; while the page waits to reconnect (the server's retry: 3 s), the runtime stops.
    web.fleet.server.app.get(EventStreams).beforeApplicationShutdown();
    await stopRuntime();
    await eventually('the indicator live again', async () => (await page.evaluate<string[]>('window.__liveStates')).includes('live'));
    await expect(page.evaluate<string[]>('window.__liveStates')).resolves.toEqual(['reconnecting', 'live']);
    await eventually('the device offline in the table', async () => (await statusCell().textContent()) === 'offline');
    expect(resumes).toEqual([expect.stringMatching(/^\S+$/)]);
    // Resumed inside the window: the missed event was replayed, nothing had to be reloaded.
    expect(listLoads).toEqual([]);
    await expect(stillSamePage()).resolves.toBe(true);
    expect(navigations).toBe(0);
  });

  it("updates the device page's status card on its device's events, without a reload", async () => {
    // Opened once the server holds the device's tunnel (its files panel lists a directory, which an offline device answers 503).
    await startRuntime();
    await eventually('the device online in the table', async () => (await statusCell().textContent()) === 'online');
    await page.getByRole('link', { name: 'porch-pi' }).click();
    await page.getByRole('heading', { name: 'porch-pi' }).waitFor();
    const badge = page.locator('.status-card .badge');
    const rootListed = page.getByRole('list', { name: 'Contents of /' }).getByRole('button', { name: 'tmp/' });
    await badge.filter({ hasText: /^online$/ }).waitFor();
    await rootListed.waitFor();
    await stopRuntime();
    await badge.filter({ hasText: /^offline$/ }).waitFor();
    await startRuntime();
    await badge.filter({ hasText: /^online$/ }).waitFor();
    // The files panel came back with the device, and the device answered its listing.
    await rootListed.waitFor();
    await expect(page.locator('.status-card dd').filter({ hasText: /^(TCP|QUIC)/ }).count()).resolves.toBe(1);
    await expect(stillSamePage()).resolves.toBe(true);
    expect(navigations).toBe(0);
  });

  it('reloads the list on `reset`, when more happened while the stream was down than the server keeps', async () => {
    await page.getByRole('link', { name: '← Devices' }).click();
    await page.getByRole('heading', { name: 'Devices' }).waitFor();
    await eventually('the indicator live', async () => (await liveState()) === 'live');
    const listLoads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/devices') listLoads.push(request.url());
    });
    // The stream drops; while the page waits to reconnect, more events than the window holds happen:
    // presence events, which the table otherwise lays over its rows without a request, so only the
    // server's `reset` can make it reload. (The runtime is online: they say nothing untrue.)
    web.fleet.server.app.get(EventStreams).beforeApplicationShutdown();
    const events = web.fleet.server.app.get(FleetEvents);
    for (let i = 0; i <= WINDOW; i++) events.emit({ type: 'device.online', audience: { deviceId: 'live-1' }, deviceId: 'live-1' });
    await eventually('the list reloaded after the reset', () => listLoads.length > 0);
    await eventually('the indicator live again', async () => (await liveState()) === 'live');
    // And after the reset the page follows again: a new registration shows.
    await submitRegistration(web.fleet.server, 'gap-after', `user:${ALICE}`, { hostname: 'gap-host-after' });
    await page.getByRole('link', { name: 'gap-host-after (review)' }).waitFor();
    await expect(stillSamePage()).resolves.toBe(true);
    expect(navigations).toBe(0);
  });

  it('stops following on sign-out, and a signed-out page opens no stream', async () => {
    const opened: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/events') opened.push(request.url());
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${web.fleet.server.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await eventually('no stream of alice open on the server', () => web.fleet.server.app.get(EventStreams).stats().every((s) => s.email !== ALICE));
    expect(opened).toEqual([]);
  });
});

describe('web dashboard: the live stream and token renewal', () => {
  // Tokens live 65 s and the dashboard renews them 60 s before they expire: the first renewal comes after ~5 s.
  const web = useBrowserFleet({ identityProvider: { accessTokenTtlSeconds: 65 } });

  it('reconnects with the renewed token at once, resuming from the last id, and keeps one stream open', async () => {
    const tab = await web.openTab(1280);
    const page = tab.page;
    const { server } = web.fleet;
    const streams: { url: string; token: string; lastEventId: string | undefined }[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname !== '/events') return;
      const headers = request.headers();
      streams.push({ url: request.url(), token: headers.authorization ?? '', lastEventId: headers['last-event-id'] });
    });
    await signInThroughProvider(page, server.url, 'rene@live.test');
    await eventually('a stream opened with a token', () => streams.length >= 1 && streams[0].token.startsWith('Bearer '));
    expect(streams[0].lastEventId).toBeUndefined();

    await eventually('a second stream, with the renewed token', () => streams.length >= 2, { timeoutMs: 50_000 });
    expect(streams[1].token).not.toBe(streams[0].token);
    expect(streams[1].lastEventId).toMatch(/^\S+$/);
    // Never in the URL: the token goes in the header only.
    expect(streams.map((s) => s.url)).toEqual(streams.map(() => `${server.url}/events`));
    await eventually('the indicator live', async () => (await page.locator('.top .live').getAttribute('data-state')) === 'live');
    await eventually('one stream of the user on the server', () => server.app.get(EventStreams).stats().filter((s) => s.email === 'rene@live.test').length === 1);
    expect(tab.consoleErrors).toEqual([]);
  }, 90_000);
});
