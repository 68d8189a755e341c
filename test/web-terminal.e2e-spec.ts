/**
 * The dashboard's terminal in a real browser (Debian's chromium through playwright-core) against a
 * real server, identity provider and runtime: xterm.js over the terminal bridge. Typing and
 * reading back from the terminal's rows, resizing with the window, Ctrl-C and the Interrupt
 * button on a `sleep`, the exit code, Reconnect, and a viewer who is offered no terminal; no
 * console error (a CSP violation is one). Screenshots at 1280 and 390 px (UPDATE_SCREENSHOTS=1
 * writes them to docs/screenshots).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useBrowserFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';
import type { FleetSpec } from './fixtures/fleet';

const ALICE = 'alice@term.test';
const VICTOR = 'victor@term.test';

const spec: FleetSpec = {
  users: { alice: ALICE, victor: VICTOR },
  devices: {
    'dev-1': { owner: 'alice', hostname: 'kitchen-pi', shares: { victor: 'viewer' }, runtime: true },
    'dev-2': { owner: 'alice', hostname: 'garage-gateway' },
  },
};

/** The terminal's visible rows as text (xterm's DOM renderer draws spaces as no-break spaces). */
const screen = (page: Page) => page.locator('.xterm-rows > div').evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));

/** Whether the shell with this pid runs a `sleep` (the runtime, and so its shell, is local to the test). */
function sleeping(shellPid: string): boolean {
  try {
    return execFileSync('pgrep', ['-x', '-P', shellPid, 'sleep'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

describe('web dashboard terminal', () => {
  const web = useBrowserFleet(spec);
  const signedIn = async (email: string): Promise<Page> => (await web.signedIn(email)).page;

  /** Types a line into the terminal and waits for `expected` to appear on its screen after it. */
  async function run(page: Page, line: string, expected: RegExp): Promise<RegExpMatchArray> {
    await page.locator('.xterm').click();
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
    return eventually(`${expected} after "${line}"`, async () => {
      const text = await screen(page);
      const at = text.lastIndexOf(line);
      return at >= 0 && expected.exec(text.slice(at + line.length));
    }, { describe: () => screen(page) });
  }

  let alice: Page;

  it('opens the device shell: typed input reaches it and its output is on the screen', async () => {
    alice = await signedIn(ALICE);
    await alice.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await alice.getByRole('heading', { name: 'Terminal' }).waitFor();
    // No shell until asked for: a visit of the page opens none.
    await alice.locator('[data-terminal-state="idle"]').waitFor();
    await alice.getByRole('button', { name: 'Open terminal' }).click();
    await alice.locator('[data-terminal-state="open"]').waitFor();
    await run(alice, 'echo hi', /^hi$/m);
    await run(alice, 'echo "$TERM"', /^xterm-256color$/m);
  });

  it('resizes the device terminal with the panel', async () => {
    const [, rows, cols] = await run(alice, 'stty size', /^(\d+) (\d+)$/m);
    expect(Number(cols)).toBeGreaterThan(80);
    // The device's terminal has as many rows as xterm draws.
    expect(Number(rows)).toBe(await alice.locator('.xterm-rows > div').count());
    await alice.setViewportSize({ width: 390, height: 860 });
    await eventually(`a terminal narrower than ${cols} columns`, async () => {
      const [, nowRows, nowCols] = await run(alice, 'stty size', /^(\d+) (\d+)$/m);
      return Number(nowCols) < 60 && Number(nowRows) === (await alice.locator('.xterm-rows > div').count());
    });
    await alice.setViewportSize({ width: 1280, height: 860 });
    await alice.keyboard.type('clear');
    await alice.keyboard.press('Enter');
  });

  it('shows a 24-bit colour: the cell has the colour, and the page logs no CSP violation', async () => {
    // The text is put together by printf, so only the output, not the command line, reads "truecolor".
    await run(alice, String.raw`printf '\033[38;2;255;100;0m%s%s\033[0m\n' true color`, /^truecolor$/m);
    const cell = alice.locator('.xterm-rows span').filter({ hasText: /^truecolor$/ });
    await expect(cell.evaluate((span) => span.ownerDocument.defaultView!.getComputedStyle(span).color)).resolves.toBe('rgb(255, 100, 0)');
    // afterEach: no console error, where chromium reports a refused inline style.
  });

  it('lets the keyboard leave the terminal: Ctrl+M (or the button) makes Tab move the focus, as VS Code does', async () => {
    const inTerminal = () => alice.evaluate<boolean>("document.activeElement?.closest('.xterm') !== null");
    const toggle = alice.getByRole('button', { name: 'Tab moves focus' });
    await alice.locator('.xterm').click();
    await expect(alice.locator('#terminal-keys').textContent()).resolves.toMatch(/Tab goes to the shell\. Ctrl\+M in the terminal/);
    // By default Tab belongs to the shell: it completes `ech` to `echo`, and the focus stays.
    await alice.keyboard.type('ech');
    await alice.keyboard.press('Tab');
    expect(await inTerminal()).toBe(true);
    await alice.keyboard.type('tabbed');
    await alice.keyboard.press('Enter');
    await eventually('the completed command run', async () => /^tabbed$/m.test(await screen(alice)), { describe: () => screen(alice) });

    await alice.keyboard.press('Control+M');
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    await alice.keyboard.press('Tab');
    expect(await inTerminal()).toBe(false);
    await expect(alice.evaluate<string>('document.activeElement?.tagName')).resolves.toMatch(/^(A|BUTTON|INPUT|SELECT|TEXTAREA|SUMMARY)$/);
    // Back in with Shift+Tab, and out the other way, to the switch, which the keyboard turns off.
    await alice.keyboard.press('Shift+Tab');
    expect(await inTerminal()).toBe(true);
    await alice.keyboard.press('Shift+Tab');
    await expect(alice.evaluate<string>('document.activeElement?.textContent')).resolves.toBe('Tab moves focus');
    await alice.keyboard.press('Space');
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    await expect(alice.locator('#terminal-keys').textContent()).resolves.toMatch(/^Tab goes to the shell\./);
  });

  it('Ctrl-C interrupts a sleep: the prompt returns and $? is 130; the Interrupt button does the same', async () => {
    const [, shell] = await run(alice, 'echo "pid $$"', /^pid (\d+)$/m);
    await alice.keyboard.type('sleep 100');
    await alice.keyboard.press('Enter');
    await eventually('sleep 100 running', () => sleeping(shell));
    await alice.keyboard.press('Control+C');
    await eventually('sleep 100 gone', () => !sleeping(shell));
    await run(alice, 'echo "status $?"', /^status 130$/m);

    await alice.keyboard.type('sleep 101');
    await alice.keyboard.press('Enter');
    await eventually('sleep 101 running', () => sleeping(shell));
    await alice.getByRole('button', { name: 'Interrupt' }).click();
    await eventually('sleep 101 gone', () => !sleeping(shell));
    await run(alice, 'echo "after $?"', /^after 130$/m);
    await shootTerminal(alice);
  });

  it('shows the exit code when the shell ends, and Reconnect opens a new shell', async () => {
    await alice.locator('.xterm').click();
    await alice.keyboard.type('exit 3');
    await alice.keyboard.press('Enter');
    const exit = alice.locator('[data-shell-exit-code]');
    await exit.waitFor();
    expect(await exit.getAttribute('data-shell-exit-code')).toBe('3');
    expect(await exit.textContent()).toBe('The shell exited with code 3.');

    await alice.getByRole('button', { name: 'Reconnect' }).click();
    await alice.locator('[data-terminal-state="open"]').waitFor();
    expect(await exit.count()).toBe(0);
    await run(alice, 'echo again-$((20+22))', /^again-42$/m);
  });

  it('streams a command\'s output on the same page: the first line shows while the command still runs, then the rest and the exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-web-stream-'));
    const go = join(dir, 'go');
    try {
      await alice.getByRole('textbox', { name: 'Command' }).fill(`sh -c "echo first; while [ ! -e ${go} ]; do sleep 0.1; done; echo second"`);
      await alice.getByRole('button', { name: 'Run', exact: true }).click();
      await eventually('the first line while the command runs', async () => (await alice.getByLabel('Output').textContent()) === 'first\n');
      expect(await alice.locator('[data-exit-code]').count()).toBe(0);
      expect(await alice.getByRole('button', { name: 'Stop', exact: true }).count()).toBe(1);
      writeFileSync(go, '');
      await alice.locator('[data-exit-code="0"]').waitFor();
      expect(await alice.getByLabel('Output').textContent()).toBe('first\nsecond\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('offers no terminal for an offline device, and asks for no ticket', async () => {
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => asked.push(new URL(request.url()).pathname);
    alice.on('request', onRequest);
    try {
      await alice.goto(`${web.fleet.server.url}/#/devices/dev-2`);
      await alice.getByRole('heading', { name: 'garage-gateway' }).waitFor();
      await alice.getByText('The terminal opens when the device is online.').waitFor();
      expect(await alice.locator('.xterm').count()).toBe(0);
      // Nor a directory listing that could only answer 503 (a console error in the browser).
      await alice.getByText('Files can be browsed when the device is online.').waitFor();
    } finally {
      alice.off('request', onRequest);
    }
    expect(asked.filter((path) => path === '/api/tickets' || path.endsWith('/files'))).toEqual([]);
  });

  it('offers a viewer no terminal, and the server refuses the viewer a ticket anyway', async () => {
    const victor = await signedIn(VICTOR);
    await victor.goto(`${web.fleet.server.url}/#/devices/dev-1`);
    await victor.getByRole('heading', { name: 'kitchen-pi' }).waitFor();
    await victor.getByText('may view this device only').waitFor();
    expect(await victor.getByRole('heading', { name: 'Terminal' }).count()).toBe(0);
    expect(await victor.locator('.xterm').count()).toBe(0);
    const refused = await web.fleet.server.api.post('/api/tickets', { device: 'dev-1', operation: 'device_shell' }, { ...web.fleet.user('victor').caller, headers: { origin: web.fleet.server.url } });
    expect(refused.status).toBe(403);
  });

  it('says so when the device goes away under the session, and offers Reconnect', async () => {
    const device = await web.fleet.addDevice('dev-3', { owner: 'alice', hostname: 'shed-pi', runtime: true });
    await alice.goto(`${web.fleet.server.url}/#/devices/dev-3`);
    await alice.getByRole('button', { name: 'Open terminal' }).click();
    await alice.locator('[data-terminal-state="open"]').waitFor();
    await run(alice, 'echo still-here', /^still-here$/m);
    device.runtime!.kill('SIGTERM');
    await device.runtime!.exited;
    const ended = alice.getByRole('status').filter({ hasText: /^The (shell was ended by SIGHUP|connection closed: .+)\.$/ });
    await ended.waitFor();
    await alice.locator('[data-terminal-state="closed"], [data-terminal-state="exited"]').waitFor();
    expect(await alice.getByRole('button', { name: 'Reconnect' }).isEnabled()).toBe(true);
  });

  /** The device page with its terminal at both widths; nothing may be wider than the window. */
  const shootTerminal = (page: Page) => web.shoot(page, 'terminal', () => page.locator('.terminal-host').scrollIntoViewIfNeeded());
});
