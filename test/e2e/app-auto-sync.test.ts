// The app's own syncs cover every connected account, not just the one on show (the new-user trial, issue 29): a
// parcel renamed in one account, then another account shown, reaches the service at the next automatic sync (the
// timer's, or the network coming back), and the status line says so by the account's label. Before, it waited for
// that account's Sync button. `npm start`'s launcher with the embedded demo service, Debian's Chromium at 1280x800.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SHOTS } from './embed-harness.ts';
import { demoApi, openApp, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-auto-sync-');
  ({ browser } = ctx);
}, 150_000);
afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const message = () => page.getByRole('status', { name: 'Message' }).textContent();
const editor = () => page.getByRole('form', { name: 'Edit parcel' });

describe("the app's automatic syncs", () => {
  it('send the edits of an account that is not on show, and name it by its label', async () => {
    const api = demoApi(ctx);
    ({ page } = await openApp(browser, ctx.app.url));
    await waitOnline(page);

    // A second account, connected here from the Accounts screen (not shown).
    await page.locator('.top h1').click();
    await page.keyboard.press('a');
    const form = page.getByRole('dialog', { name: 'Accounts' }).getByRole('form', { name: `Create an account in Furrow Demo Co-op at ${ctx.service}` });
    await form.getByLabel("New account's e-mail").fill('second@example.com');
    await form.getByLabel('Label (optional)').fill('Second grower');
    await form.getByRole('button', { name: 'Create account' }).click();
    await poll(message).toMatch(/Created second@example.com .* connected it here/);
    await page.keyboard.press('Escape');

    // The demo account's parcel renamed; then the other account shown, which syncs that one only.
    await page.locator('.top h1').click();
    await page.keyboard.press('/');
    await page.keyboard.type('Olivar B');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(/^Olivar B/);
    await page.keyboard.press('Enter');
    await poll(() => editor().getByLabel('Name').inputValue()).toBe('Olivar B');
    await editor().getByLabel('Name').fill('Olivar B (renamed)');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await poll(() => editor().getByLabel('Name').inputValue()).toBe('Olivar B (renamed)');
    // A metadata filter of the demo account's: another account shown starts unfiltered (its map is not emptied by
    // a filter on metadata it may not even have).
    const filter = page.getByRole('form', { name: 'Add a metadata filter' });
    await filter.getByLabel('Filter key').fill('crop_type');
    await filter.getByLabel('Filter value').fill('Olive');
    await filter.getByRole('button', { name: 'Filter' }).click();
    await poll(() => page.getByRole('status', { name: 'Filter on' }).count()).toBe(1);
    const second = await page.locator('.statusbar select option', { hasText: 'Second grower' }).getAttribute('value');
    await page.locator('.statusbar select').selectOption(second!);
    await poll(() => message()).toMatch(/^Synced: /);
    expect(await page.getByRole('status', { name: 'Filter on' }).count()).toBe(0);
    expect(await page.getByRole('list', { name: 'Metadata filter' }).count()).toBe(0);
    expect(await api.parcel('Olivar B (renamed)')).toBeUndefined();

    // The network comes back (as the timer would fire): every account syncs, the demo account's rename goes.
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await poll(async () => (await api.parcel('Olivar B (renamed)'))?.properties.name).toBe('Olivar B (renamed)');
    await poll(message).toMatch(/Also: Demo grower 1 sent/);
    await page.screenshot({ path: `${SHOTS}/app-auto-sync.png` });
  }, 180_000);
});
