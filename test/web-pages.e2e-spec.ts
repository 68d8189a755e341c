/**
 * The dashboard's device panels and organization pages in a real browser (Debian's chromium
 * through playwright-core) against a real server, identity provider and runtime: deploying from
 * the device page and watching the job turn healthy, following its log, clone/activate/remove,
 * sharing with a viewer (who is offered no write control), the audit log, organization members and
 * devices, and users awaiting approval for an administrator. No console error anywhere; screenshots
 * at 1280 and 390 px (UPDATE_SCREENSHOTS=1 writes them to docs/screenshots).
 */
import type { Page } from 'playwright-core';
import { useBrowserFleet } from './fixtures/browser';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { eventually } from './fixtures/eventually';
import { expectRefused } from './fixtures/expect-error';
import type { FleetSpec } from './fixtures/fleet';

const ALICE = 'alice@pages.test';
const VICTOR = 'victor@pages.test';
const NEWCOMER = 'newcomer@elsewhere.test';
/** Browsers log every refused request; a test that provokes one names it and removes it. */
const refusedRequest = (status: number) => new RegExp(`Failed to load resource: the server responded with a status of ${status}`);

const spec: FleetSpec = {
  // Alice administers the server; users of pages.test need no approval, anyone else waits for it.
  env: { USERS_NEED_APPROVAL: 'true', USER_AUTO_ACCEPT_DOMAINS: 'pages.test', ADMIN_EMAILS: ALICE },
  users: { alice: ALICE, victor: VICTOR },
  orgs: { acme: { owner: 'alice', members: { victor: 'viewer' } }, hidden: { owner: 'alice' } },
  devices: {
    'dev-1': { owner: 'alice', hostname: 'kitchen-pi', runtime: true },
    'dev-2': { owner: 'alice', hostname: 'garage-gateway' },
  },
};

/** A process job that writes a numbered line twice a second: healthy while it runs, and its log grows. */
const ticker = serviceJob('ticker', {
  steps: [{ name: 'main', run: 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.5; done' }],
  observe: { health: { every: '300ms', observe: 'true', fails_after: 2 } },
  restart: { policy: 'always', backoff: '200ms', max_backoff: '1s' },
});

/** The ticker as a user writes it (docs/runspec.md): a deployment document the page reads as `svc deploy` does. */
const TICKER_YAML = `name: ticker from the page
jobs:
  - id: ticker
    steps:
      - name: main
        run: 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.5; done'
    observe:
      health: {every: 300ms, observe: 'true', fails_after: 2}
    restart: {policy: always, backoff: 200ms, max_backoff: 1s}
`;

describe('web dashboard: deployments, access, audit, organizations, users', () => {
  const web = useBrowserFleet(spec);
  let ticking: NodeJS.Timeout | undefined;

  beforeAll(() => {
    // The test server's clock stands still; deployment reports stored in the same instant would tie as "newest".
    ticking = setInterval(() => web.fleet.server.clock.advance(20), 20);
  });
  afterAll(() => clearInterval(ticking));

  const tab = async (email: string): Promise<Page> => (await web.signedIn(email)).page;

  /** Forgets the console lines of requests the test made the server refuse on purpose (there must be some). */
  function expectRefusedInConsole(page: Page, status: number): void {
    const opened = web.tabs.find((t) => t.page === page)!;
    const expected = refusedRequest(status);
    expect(opened.consoleErrors.filter((line) => expected.test(line)).length).toBeGreaterThan(0);
    opened.consoleErrors.splice(0, opened.consoleErrors.length, ...opened.consoleErrors.filter((line) => !expected.test(line)));
  }

  const shoot = (page: Page, name: string) => web.shoot(page, name);

  const deploymentsOf = async (device: string) =>
    ((await web.fleet.user('alice').run('device_deployment_list', { devices: [device] })) as { results: { deployments: { id: string; active: boolean }[] }[] }).results[0].deployments;

  let alice: Page;
  let deploymentId: string;

  it('refuses a bad run-spec on the page, naming its line and field, and sends nothing', async () => {
    alice = await tab(ALICE);
    await alice.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    const panel = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Deployments' }) });
    await panel.getByText('No deployment on this device.').waitFor();
    const deploys: string[] = [];
    alice.on('request', (request) => {
      if (request.url().includes('/deployments/jobs')) deploys.push(request.url());
    });

    await panel.locator('summary', { hasText: 'Deploy' }).click();
    const spec = panel.getByLabel(/Run-spec/);
    const refusal = panel.getByRole('alert');
    await spec.fill('id: ticker\nsteps:\n  - name: main\n    run: [echo, "unclosed\n');
    await panel.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect(refusal.textContent()).resolves.toMatch(/^INVALID_INPUT pasted text:5: Missing closing "quote/);
    await spec.fill('id: ticker\nsteps:\n  - name: main\n    run: echo hi\n    retries: 3\n');
    await panel.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect(refusal.filter({ hasText: 'retries' }).textContent()).resolves.toMatch(/^INVALID_INPUT pasted text:5: steps\[0\]\.retries: /);
    expect(deploys).toEqual([]);
    expect(await deploymentsOf('dev-1')).toEqual([]);
  });

  it('deploys a YAML run-spec file from the device page and shows the job turn running and healthy', async () => {
    const panel = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Deployments' }) });
    await panel.locator('input[type=file]').setInputFiles({ name: 'ticker.yaml', mimeType: 'application/yaml', buffer: Buffer.from(TICKER_YAML) });
    // The page reads the file into the text box (asynchronously): what is sent is what is shown.
    await eventually('the file in the text box', async () => (await panel.getByLabel(/Run-spec/).inputValue()) === TICKER_YAML);
    await panel.getByRole('button', { name: 'Deploy', exact: true }).click();
    const deployed = await panel.getByRole('status').filter({ hasText: 'Deployed into' }).textContent();
    deploymentId = /Deployed into (\S+)\./.exec(deployed!)![1];
    expect(await deploymentsOf('dev-1')).toEqual([expect.objectContaining({ id: deploymentId, active: true })]);
    // The page sent what `svc deploy` makes of the same file.
    const shown = (await web.fleet.user('alice').run('device_deployment_show', { device: 'dev-1', deployment_id: deploymentId })) as { name: string; jobs: unknown[] };
    expect({ name: shown.name, jobs: shown.jobs }).toEqual({ name: 'ticker from the page', jobs: [ticker] });

    const row = panel.locator(`tr[data-deployment="${deploymentId}"]`);
    await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('active');
    const job = panel.locator('tr[data-job="ticker"]');
    await eventually('the job running and healthy on the page', async () => (await job.count()) === 1 && (await job.locator('[data-health]').textContent()) === 'healthy' && (await job.getByRole('cell').nth(1).textContent()) === 'running', {
      describe: async () => (await panel.textContent()) ?? '',
    });
    await shoot(alice, 'device-deployments');
  });

  it('follows a job log: new lines appear while it is open', async () => {
    const panel = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Deployments' }) });
    await panel.getByRole('button', { name: 'Log of ticker' }).click();
    const log = alice.getByLabel('Log of ticker', { exact: true }).and(alice.locator('pre'));
    const ticks = async () => [...((await log.textContent()) ?? '').matchAll(/tick (\d+)/g)].map((m) => Number(m[1]));
    const first = await eventually('a first line', async () => {
      const seen = await ticks();
      return seen.length > 0 && Math.max(...seen);
    });
    await alice.getByText('following…').waitFor();
    await eventually(`a line after tick ${first}`, async () => Math.max(...(await ticks())) >= first + 2);

    // Without follow the answer ends after the last lines.
    await alice.getByLabel('Follow').uncheck();
    await alice.getByText('end of log').waitFor();
    expect((await ticks()).length).toBeGreaterThan(0);
    await alice.getByRole('button', { name: 'Close log' }).click();
    expect(await log.count()).toBe(0);
  });

  it('clones a deployment, activates the clone and removes the original', async () => {
    const panel = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Deployments' }) });
    await panel.locator(`tr[data-deployment="${deploymentId}"]`).getByRole('button', { name: 'Clone' }).click();
    const cloned = await panel.getByRole('status').filter({ hasText: 'Cloned' }).textContent();
    const cloneId = new RegExp(`Cloned ${deploymentId} into (\\S+)\\.`).exec(cloned!)![1];
    const clone = panel.locator(`tr[data-deployment="${cloneId}"]`);
    await clone.getByRole('button', { name: 'Activate' }).click();
    await panel.getByRole('status').filter({ hasText: `Activated ${cloneId}.` }).waitFor();
    // The message comes before the list is read again.
    await eventually('the clone shown active', async () => (await clone.getByRole('cell').nth(1).textContent()) === 'active');

    // Removal asks first; Cancel keeps it, and the confirmation takes the keyboard's focus.
    await panel.getByRole('button', { name: `Remove ${deploymentId}` }).click();
    await panel.getByRole('group', { name: `Confirm removal of ${deploymentId}` }).getByRole('button', { name: 'Cancel' }).click();
    expect(await panel.locator(`tr[data-deployment="${deploymentId}"]`).count()).toBe(1);
    await panel.getByRole('button', { name: `Remove ${deploymentId}` }).click();
    const confirm = panel.getByRole('group', { name: `Confirm removal of ${deploymentId}` }).getByRole('button', { name: 'Yes, remove' });
    // Focus moves after the confirmation is drawn (an effect): Enter before that would press nothing.
    await eventually('the confirmation focused', () => confirm.evaluate((button) => button.matches(':focus')));
    await alice.keyboard.press('Enter');
    await panel.getByRole('status').filter({ hasText: `Removed ${deploymentId}.` }).waitFor();
    await eventually('the original gone from the page', async () => (await panel.locator(`tr[data-deployment="${deploymentId}"]`).count()) === 0);
    expect(await deploymentsOf('dev-1')).toEqual([expect.objectContaining({ id: cloneId, active: true })]);
    // The status shown is the active deployment's.
    await eventually('the clone running on the page', async () => (await panel.locator('[data-deployment-status]').getAttribute('data-deployment-status')) === 'running' && (await panel.locator('.deployment-status strong').textContent()) === cloneId);
  });

  it('shows an automatic rollback and its reason: a deployment whose job never gets healthy', async () => {
    const panel = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Deployments' }) });
    const good = (await deploymentsOf('dev-1')).find((d) => d.active)!.id;
    await panel.locator(`tr[data-deployment="${good}"]`).getByRole('button', { name: 'Clone' }).click();
    const cloned = await panel.getByRole('status').filter({ hasText: 'Cloned' }).textContent();
    const bad = new RegExp(`Cloned ${good} into (\\S+)\\.`).exec(cloned!)![1];
    const broken = serviceJob('api', { steps: [{ name: 'main', run: ['sleep', '3600'] }], observe: { health: { every: '200ms', observe: 'exit 1', fails_after: 2 } } });
    const request = deployRequest([broken], { deployment_id: bad, mode: 'replace', rollback: { on_health_failure: 'any', stabilization_period_secs: 20 } });
    await panel.getByLabel(/Run-spec/).fill(JSON.stringify(request));
    await panel.getByRole('button', { name: 'Deploy', exact: true }).click();
    await panel.getByRole('status').filter({ hasText: `Deployed into ${bad}.` }).waitFor();
    await panel.locator(`tr[data-deployment="${bad}"]`).getByRole('button', { name: 'Activate' }).click();
    await panel.getByRole('status').filter({ hasText: `Activated ${bad}.` }).waitFor();

    // The page sees the device go back to the good deployment, and says why.
    const note = panel.getByRole('note').filter({ hasText: `Active after a rollback from ${bad}` });
    await eventually('the rollback on the page', async () => (await note.count()) === 1, { describe: async () => (await panel.textContent()) ?? '' });
    expect(await note.textContent()).toMatch(/job api is running, unhealthy/);
    await expect(panel.locator(`tr[data-deployment="${good}"] td`).nth(1).textContent()).resolves.toBe('active');
    await panel.getByRole('button', { name: bad, exact: true }).click();
    await expect(panel.getByRole('note').filter({ hasText: `Rolled back to ${good}` }).textContent()).resolves.toMatch(/job api is running, unhealthy/);
    await expect(panel.locator('[data-deployment-status]').getAttribute('data-deployment-status')).resolves.toBe('rolled_back');
    await shoot(alice, 'device-rollback');
    await panel.getByRole('button', { name: `Remove ${bad}` }).click();
    await panel.getByRole('button', { name: 'Yes, remove' }).click();
    await panel.getByRole('status').filter({ hasText: `Removed ${bad}.` }).waitFor();
  });

  it("shows each job's restarts as the device counts them", async () => {
    const panel = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Deployments' }) });
    const good = (await deploymentsOf('dev-1')).find((d) => d.active)!.id;
    await panel.locator(`tr[data-deployment="${good}"]`).getByRole('button', { name: 'Clone' }).click();
    const cloned = await panel.getByRole('status').filter({ hasText: 'Cloned' }).textContent();
    const restarting = new RegExp(`Cloned ${good} into (\\S+)\\.`).exec(cloned!)![1];
    // Beside the ticker (never restarted), a job that exits at once and is started again.
    const flaky = serviceJob('flaky', { steps: [{ name: 'main', run: 'sleep 0.2; exit 1' }], restart: { policy: 'always', backoff: '200ms', max_backoff: '400ms' } });
    await panel.getByLabel(/Run-spec/).fill(JSON.stringify(deployRequest([flaky], { deployment_id: restarting })));
    await panel.getByRole('button', { name: 'Deploy', exact: true }).click();
    await panel.getByRole('status').filter({ hasText: `Deployed into ${restarting}.` }).waitFor();
    await panel.locator(`tr[data-deployment="${restarting}"]`).getByRole('button', { name: 'Activate' }).click();
    await panel.getByRole('status').filter({ hasText: `Activated ${restarting}.` }).waitFor();

    const restartsShown = async (job: string) => Number(await panel.locator(`tr[data-job="${job}"]`).getByRole('cell').nth(3).textContent());
    const shown = await eventually(
      'flaky restarted twice on the page',
      async () => {
        if ((await panel.locator('.deployment-status strong').textContent()) !== restarting) return 0;
        const restarts = await restartsShown('flaky');
        return restarts >= 2 && restarts;
      },
      { describe: async () => (await panel.textContent()) ?? '' },
    );
    expect(await restartsShown('ticker')).toBe(0);
    // What the route answers (read after the page, and restarts only grow).
    const status = await web.fleet.user('alice').run('device_deployment_status', { devices: ['dev-1'], deployment_id: restarting });
    const jobs = (status as { results: { jobs: { id: string; restarts: number }[] }[] }).results[0].jobs;
    expect(jobs.find((j) => j.id === 'ticker')!.restarts).toBe(0);
    expect(jobs.find((j) => j.id === 'flaky')!.restarts).toBeGreaterThanOrEqual(shown);

    await panel.locator(`tr[data-deployment="${good}"]`).getByRole('button', { name: 'Activate' }).click();
    await panel.getByRole('status').filter({ hasText: `Activated ${good}.` }).waitFor();
    await panel.getByRole('button', { name: `Remove ${restarting}` }).click();
    await panel.getByRole('button', { name: 'Yes, remove' }).click();
    await panel.getByRole('status').filter({ hasText: `Removed ${restarting}.` }).waitFor();
  });

  it('shares the device with a viewer, who is offered no write control and is refused anyway; then stops sharing', async () => {
    const access = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Access' }) });
    await access.getByText('Not shared.').waitFor();
    await access.getByLabel('E-mail or organization id').fill(VICTOR);
    await access.getByLabel('Role').selectOption('viewer');
    await access.getByRole('button', { name: 'Share' }).click();
    await access.getByRole('status').filter({ hasText: `Shared with ${VICTOR} as viewer.` }).waitFor();
    await expect(access.locator(`tr[data-share="${VICTOR}"] td`).nth(1).textContent()).resolves.toBe('viewer');
    await shoot(alice, 'device-access');

    const victor = await tab(VICTOR);
    await victor.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await victor.getByRole('heading', { name: 'kitchen-pi' }).waitFor();
    const deployments = victor.locator('.card', { has: victor.getByRole('heading', { name: 'Deployments' }) });
    await deployments.locator('tr[data-job="ticker"]').waitFor();
    await victor.locator(`tr[data-share="${VICTOR}"]`).waitFor();
    await victor.getByRole('table', { name: 'Audit log' }).waitFor();
    for (const name of ['Activate', 'Clone', 'Deploy', 'Share', 'Run']) expect({ name, count: await victor.getByRole('button', { name, exact: true }).count() }).toEqual({ name, count: 0 });
    expect(await victor.getByRole('button', { name: /^(Remove|Stop sharing)/ }).count()).toBe(0);
    expect(await victor.locator('details.deploy').count()).toBe(0);
    expect(await victor.getByLabel('E-mail or organization id').count()).toBe(0);
    const viewer = web.fleet.user('victor');
    await expectRefused(viewer.route('device_deploy.jobs', { device: 'dev-1' }, deployRequest([ticker])), 403);
    await expectRefused(viewer.run('device_access_add', { device: 'dev-1', email_or_org_id: 'x@pages.test', role: 'viewer' }), 403);

    await access.getByRole('button', { name: `Stop sharing with ${VICTOR}` }).click();
    await access.getByRole('status').filter({ hasText: `Stopped sharing with ${VICTOR}.` }).waitFor();
    await access.getByText('Not shared.').waitFor();
    expect(await web.fleet.user('alice').run('device_access_list', { device: 'dev-1' })).toEqual([]);
  });

  it('shows a refused share as the API answers it: message and request id', async () => {
    const access = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Access' }) });
    await access.getByLabel('E-mail or organization id').fill('no-such-org');
    await access.getByRole('button', { name: 'Share' }).click();
    const alert = access.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/not found|organization/i);
    expect(await alert.locator('.request-id code').textContent()).toMatch(/^[A-Za-z0-9._-]{8,}$/);
    expectRefusedInConsole(alice, 404);
  });

  it('shows the audit log newest first, and only the chosen days', async () => {
    // A reload would sign out (tokens live in memory): away and back remounts the device page.
    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    const audit = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Audit log' }) });
    const table = audit.getByRole('table', { name: 'Audit log' });
    await table.waitFor();
    const logOf = async () => ((await web.fleet.user('alice').route('device_audit_logs.one', { device: 'dev-1', max: 200 })) as { logs: { timestamp: string; action: string }[] }).logs;
    const shownActions = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-action')));
    // The page's own requests are audited too (its files panel lists a directory: device.file_read),
    // and may land after the audit panel loaded: once they have, "Show" reloads it, and then it is the API's log.
    const files = alice.locator('.card', { has: alice.getByRole('heading', { name: 'Files' }) });
    await files.getByRole('list', { name: 'Contents of /' }).or(files.getByText('This directory is empty.')).waitFor();
    let expected: { timestamp: string; action: string }[] = [];
    let shown: (string | null)[] = [];
    await eventually('the audit log shown as the API answers it', async () => {
      await audit.getByRole('button', { name: 'Show' }).click();
      await table.waitFor();
      [shown, expected] = await Promise.all([shownActions(), logOf()]);
      return JSON.stringify(shown) === JSON.stringify(expected.map((e) => e.action));
    });
    expect(shown).toContain('device.file_read');
    expect(shown).toEqual(expect.arrayContaining(['device.access_added', 'device.access_removed', 'device.deployment_logs_read']));
    const times = expected.map((e) => e.timestamp);
    expect([...times].sort().reverse()).toEqual(times);
    await shoot(alice, 'device-audit');

    const day = times[0].slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await audit.getByLabel('From (UTC)').fill(next);
    await audit.getByRole('button', { name: 'Show' }).click();
    await audit.getByText('No entries in this range.').waitFor();
    await audit.getByLabel('From (UTC)').fill(day);
    await audit.getByLabel('To (UTC, inclusive)').fill(day);
    await audit.getByRole('button', { name: 'Show' }).click();
    await eventually('the entries of that day', async () => (await table.locator('tbody tr').count()) === (await logOf()).filter((e) => e.timestamp.startsWith(day)).length);
  });

  it('manages organization members, their roles and devices', async () => {
    await alice.goto(`${web.fleet.server.url}/#/orgs`);
    await alice.getByRole('button', { name: 'acme' }).click();
    const members = alice.getByRole('list', { name: 'Members of acme' });
    await members.getByText(VICTOR).waitFor();
    await alice.getByLabel(`Role of ${VICTOR}`).selectOption('editor');
    await alice.getByRole('status').filter({ hasText: `${VICTOR} is now editor.` }).waitFor();
    await alice.getByLabel('Member e-mail').fill('carol@pages.test');
    await alice.getByRole('button', { name: 'Add member' }).click();
    await members.locator('[data-member="carol@pages.test"]').waitFor();
    const owner = web.fleet.user('alice');
    expect(await owner.run('org_members_list', { org_id: 'acme' })).toEqual(expect.arrayContaining([{ email: VICTOR, role: 'editor' }, { email: 'carol@pages.test', role: 'viewer' }]));
    await alice.getByRole('button', { name: 'Remove carol@pages.test' }).click();
    await eventually('carol gone', async () => (await members.locator('[data-member="carol@pages.test"]').count()) === 0);

    await alice.getByText('No device belongs to this organization.').waitFor();
    await alice.getByLabel('Device (name or id) you own').fill('dev-2');
    await alice.getByRole('button', { name: 'Move into acme' }).click();
    const devices = alice.getByRole('list', { name: 'Devices of acme' });
    await devices.getByRole('link', { name: 'garage-gateway' }).waitFor();
    expect(await owner.run('org_devices_list', { org_id: 'acme' })).toEqual([expect.objectContaining({ id: 'dev-2' })]);
    await shoot(alice, 'orgs-detail');
    await alice.getByRole('button', { name: 'Take garage-gateway out' }).click();
    await alice.getByText('No device belongs to this organization.').waitFor();

    // Victor, now an editor of acme, may not manage it: no member or device controls.
    const victor = web.tabs[1].page;
    await victor.goto(`${web.fleet.server.url}/#/orgs`);
    await victor.getByRole('button', { name: 'acme' }).click();
    await victor.getByRole('list', { name: 'Members of acme' }).waitFor();
    expect(await victor.getByRole('button', { name: /^(Add member|Remove|Move into|Take)/ }).count()).toBe(0);
    expect(await victor.getByLabel(/^Role of/).count()).toBe(0);
  });

  it('lists users awaiting approval for an administrator only, who approves them', async () => {
    // GET /me is no catalog operation (the account itself): asked for raw.
    const newcomer = await web.fleet.server.login(NEWCOMER);
    expect((await web.fleet.server.api.get('/me', newcomer)).status).toBe(403);

    const victor = web.tabs[1].page;
    await victor.goto(`${web.fleet.server.url}/#/devices`);
    await victor.goto(`${web.fleet.server.url}/#/orgs`);
    await victor.getByRole('heading', { name: 'Organizations' }).waitFor();
    await victor.getByRole('button', { name: 'acme' }).waitFor();
    expect(await victor.getByRole('heading', { name: 'Users awaiting approval' }).count()).toBe(0);
    expect(await web.fleet.user('victor').run('server_capabilities', {})).toEqual({ capabilities: [] });

    await alice.goto(`${web.fleet.server.url}/#/devices`);
    await alice.goto(`${web.fleet.server.url}/#/orgs`);
    const waiting = alice.locator(`[data-user="${NEWCOMER}"]`);
    await waiting.waitFor();
    await shoot(alice, 'users');
    await alice.getByRole('button', { name: `Approve ${NEWCOMER}` }).click();
    await alice.getByRole('status').filter({ hasText: `Approved ${NEWCOMER}.` }).waitFor();
    await alice.getByText('Nobody is waiting.').waitFor();
    expect((await web.fleet.server.api.get('/me', newcomer)).status).toBe(200);
  });

  it('answers what the caller may do on the server and on an organization, from AccessPolicy', async () => {
    const [alice, victor, nobody] = [web.fleet.user('alice'), web.fleet.user('victor'), web.fleet.client({})];
    expect(await alice.run('server_capabilities', {})).toEqual({ capabilities: ['server:create-orgs', 'server:manage-users', 'server:read-metrics'] });
    expect(await victor.run('server_capabilities', {})).toEqual({ capabilities: [] });
    expect(await alice.run('org_capabilities', { org_id: 'acme' })).toEqual({ org_id: 'acme', capabilities: ['org:view', 'org:devices', 'org:manage', 'org:move-devices', 'org:delete'] });
    expect(await victor.run('org_capabilities', { org_id: 'acme' })).toEqual({ org_id: 'acme', capabilities: ['org:view', 'org:devices'] });
    // An organization the caller cannot see does not exist for it; no credentials, no answer.
    await expectRefused(victor.run('org_capabilities', { org_id: 'hidden' }), 404, 'NOT_FOUND');
    await expectRefused(alice.run('org_capabilities', { org_id: 'no-such-org' }), 404);
    await expectRefused(nobody.run('server_capabilities', {}), 401);
    await expectRefused(nobody.run('org_capabilities', { org_id: 'acme' }), 401);
  });
});
