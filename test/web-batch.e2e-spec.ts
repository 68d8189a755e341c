/**
 * Batch actions on the dashboard's device table in a real browser (Debian's chromium through
 * playwright-core) against a real server, identity provider, two real runtimes and one offline
 * device: select devices with the keyboard, batch status (POST /devices/status with `devices`)
 * and batch exec (POST /api/exec with `devices`, NDJSON) shown per device, the offline one as its
 * own DEVICE_OFFLINE inside a 200 answer; works at 390 px, where rows are cards; no console error.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { screenshotDir, useBrowserFleet } from './fixtures/browser';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@batch.test';
const VICTOR = 'victor@batch.test';

describe('web dashboard: batch status and batch exec', () => {
  const web = useBrowserFleet({
    users: { alice: ALICE, victor: VICTOR },
    devices: {
      'b-1': { owner: 'alice', hostname: 'kitchen-pi', runtime: true, shares: { victor: 'viewer' } },
      'b-2': { owner: 'alice', hostname: 'garage-gw', runtime: true, shares: { victor: 'editor' } },
      'b-3': { owner: 'alice', hostname: 'attic-box' },
    },
  });

  async function signedIn(email: string, width: number): Promise<Page> {
    const { page } = await web.signedIn(email, width);
    await page.locator('tr[data-device="b-2"]').waitFor();
    return page;
  }

  /** The per-device rows of a batch result table, as `{device: [cell texts]}`. */
  async function resultRows(table: Locator): Promise<Record<string, string[]>> {
    const rows: Record<string, string[]> = {};
    for (const row of await table.locator('tbody tr').all()) {
      rows[(await row.getAttribute('data-batch-device'))!] = (await row.locator('td').allTextContents()).map((text) => text.trim());
    }
    return rows;
  }

  it('selects two online devices and an offline one with the keyboard; batch status shows online, online, offline', async () => {
    const page = await signedIn(ALICE, 1280);
    for (const name of ['kitchen-pi', 'garage-gw', 'attic-box']) {
      const box = page.getByRole('checkbox', { name: `Select ${name}` });
      await box.focus();
      await page.keyboard.press('Space');
      await expect(box.isChecked()).resolves.toBe(true);
    }
    await expect(page.getByRole('checkbox', { name: 'Select all devices on this page' }).isChecked()).resolves.toBe(true);
    await page.locator('[data-selected="3"]').waitFor();

    await page.getByRole('button', { name: 'Batch status' }).click();
    const table = page.getByRole('table', { name: 'Batch status' });
    await table.waitFor();
    const rows = await resultRows(table);
    expect(Object.keys(rows).sort()).toEqual(['b-1', 'b-2', 'b-3']);
    expect(rows['b-1'].slice(0, 2)).toEqual(['kitchen-pi', 'online']);
    expect(rows['b-2'].slice(0, 2)).toEqual(['garage-gw', 'online']);
    expect(rows['b-3'].slice(0, 2)).toEqual(['attic-box', 'offline']);
    expect(rows['b-1'][3]).toMatch(/^\d+[dhms]/);
  });

  it('batch exec `echo hi` shows hi and exit code 0 for the online devices and DEVICE_OFFLINE for the offline one', async () => {
    const page = web.tabs[0].page;
    await page.getByLabel('Command for the selected devices').fill('echo hi');
    await page.getByRole('button', { name: 'Batch exec' }).click();
    const table = page.getByRole('table', { name: 'Batch exec' });
    const rows = await eventually('every device answered', async () => {
      const found = await resultRows(table);
      return ['b-1', 'b-2', 'b-3'].every((d) => found[d] && found[d][1] !== '…') && found;
    });
    expect(rows['b-1']).toEqual(['kitchen-pi', '0', 'hi']);
    expect(rows['b-2']).toEqual(['garage-gw', '0', 'hi']);
    expect(rows['b-3'][1]).toBe('—');
    expect(rows['b-3'][2]).toMatch(/^DEVICE_OFFLINE /);
    await page.screenshot({ path: join(screenshotDir(), 'devices-batch-1280.png'), fullPage: true });
    // The output is text, never markup.
    await page.getByLabel('Command for the selected devices').fill(`echo '<b id="injected">x</b>'`);
    await page.getByRole('checkbox', { name: 'Select attic-box' }).uncheck();
    await page.getByRole('button', { name: 'Batch exec' }).click();
    await eventually('the markup shown as text', async () => (await table.locator('tr[data-batch-device="b-1"] pre').textContent()) === '<b id="injected">x</b>\n');
    await expect(page.locator('#injected').count()).resolves.toBe(0);
  });

  it('at 390 px the rows are cards: select all, and a viewer gets the server’s per-device refusal', async () => {
    const page = await signedIn(VICTOR, 390);
    const all = page.getByRole('checkbox', { name: 'Select all devices on this page' });
    await all.focus();
    await page.keyboard.press('Space');
    await page.locator('[data-selected="2"]').waitFor();
    await expect(page.getByRole('checkbox', { name: 'Select kitchen-pi' }).isChecked()).resolves.toBe(true);
    await page.getByLabel('Command for the selected devices').fill('echo hi');
    await page.getByRole('button', { name: 'Batch exec' }).click();
    const table = page.getByRole('table', { name: 'Batch exec' });
    const rows = await eventually('both devices answered', async () => {
      const found = await resultRows(table);
      return ['b-1', 'b-2'].every((d) => found[d] && found[d][1] !== '…') && found;
    });
    expect(rows['b-2']).toEqual(['garage-gw', '0', 'hi']);
    expect(rows['b-1'][2]).toMatch(/^FORBIDDEN /);
    await page.screenshot({ path: join(screenshotDir(), 'devices-batch-390.png'), fullPage: true });
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
  });
});
