// Settings and the first run, end to end: `npm start`'s launcher with the embedded demo service but its account left
// unconnected (FURROW_DEMO_ACCOUNT=0, an empty FURROW_HOME), so the app opens on its Connect form. Debian's Chromium
// types a bad address, an unreachable service and a wrong API key (each refused with what to do), then the demo's
// real credentials (its key read from the service's DATA_DIR/demo-credentials.json, its account and token from the
// banner, as a user copies them);
// a second account made on the service is connected from Settings, the demo one switched back to and connected a
// second time with its account token; a disconnect with unsynced work is refused with the counts, then discarded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { drawSquare, mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp, type RunningApp } from './app-harness.ts';

let ctx: DemoApp;
let dir: string;
let app: RunningApp;
let service: string;
let browser: Browser;
let page: Page;
let problems: () => Promise<string[]>;
let demo: { api_key: string; account_id: string; account_access: string };

beforeAll(async () => {
  ctx = await startDemoApp('furrow-settings-', { FURROW_DEMO_ACCOUNT: '0' });
  ({ dir, app, service, browser } = ctx);
  // The key from the file the demo saves; the account and its token as the service's banner prints them.
  const { api_key } = JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string };
  const account = /account\s+(acc-[\w-]+)/.exec(app.err())?.[1];
  const token = /\bTOKEN='?([\w.-]+)/.exec(app.err())?.[1];
  if (!account || !token) throw new Error(`no demo account or token in the banner:\n${app.err()}`);
  demo = { api_key, account_id: account, account_access: token };
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const form = () => page.getByRole('form', { name: 'Connect another service' });
const alertText = () => form().getByRole('alert').textContent();

/** Fills the Connect form with the organization's key and an account, and submits it. */
async function connectWithKey(url: string, key: string, account: string, label = ''): Promise<void> {
  await form().getByLabel('Service address').fill(url);
  await form().getByLabel('Organization API key and account id').check();
  await form().getByLabel('API key', { exact: true }).fill(key);
  await form().getByLabel('Account id', { exact: true }).fill(account);
  await form().getByLabel('Label (optional)').fill(label);
  await form().getByRole('button', { name: 'Connect' }).click();
}

const settings = () => page.getByRole('dialog', { name: 'Settings' });
const listed = () => settings().getByRole('list', { name: 'Connected accounts' }).getByRole('listitem');

describe('first run and settings', () => {
  it('opens on the Connect form, refuses a bad address, an unreachable service and a wrong key readably, then connects the demo account', async () => {
    ({ page, problems } = await openApp(browser, app.url));
    // The launcher connected nothing: no account in the address, and the page opens on the form, not a map.
    expect(app.url).not.toContain('account=');
    await expect.poll(() => form().isVisible(), { timeout: 30_000 }).toBe(true);
    await expect(page.getByRole('heading', { name: 'Connect a service' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('.map-wrap').isVisible()).resolves.toBe(false);

    await connectWithKey('parcels.example', demo.api_key, demo.account_id);
    await expect.poll(alertText).toMatch(/not a service address: type it whole, like http:\/\//);
    // The secret field is cleared after every submit.
    await expect(form().getByLabel('API key', { exact: true }).inputValue()).resolves.toBe('');

    const closed = `http://127.0.0.1:${await freePort()}`;
    await connectWithKey(closed, demo.api_key, demo.account_id);
    await expect.poll(alertText, { timeout: 60_000 }).toMatch(new RegExp(`Could not reach ${closed.replace(/\./g, '\\.')} .*Check the address, that the service is running`));

    await connectWithKey(service, 'fk_wrong-key-0000000000000000', demo.account_id);
    await expect.poll(alertText, { timeout: 30_000 }).toMatch(/The service refused the credentials.*Check the API key and the account id/);
    await expect(form().getByLabel('API key', { exact: true }).inputValue()).resolves.toBe('');
    await page.screenshot({ path: join(SHOTS, 'app-first-run.png') });

    await connectWithKey(service, demo.api_key, demo.account_id, 'Demo grower');
    await expect.poll(() => shownOn(page), { timeout: 60_000 }).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await expect(form().count()).resolves.toBe(0);
    // The key went to the host only: nothing of it in the page's storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(stored).not.toContain(demo.api_key);
  }, 180_000);

  it('connects a second account from Settings, switches back to the demo one and connects it again with its token', async () => {
    // A second account of the demo organization, made on the service with the organization's key.
    const made = await fetch(`${service}/api/accounts/`, {
      method: 'POST', headers: { 'x-api-key': demo.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: 'second-grower@example.com' }),
    });
    expect(made.status, await made.clone().text()).toBeLessThan(300);
    const second = (await made.json() as { id: string }).id;

    await page.keyboard.press('Control+,');
    await expect.poll(() => settings().isVisible()).toBe(true);
    await expect.poll(() => listed().count()).toBe(1);
    await expect(listed().first().textContent()).resolves.toMatch(/Demo grower \(shown\)/);
    // The form starts on the address of the account shown.
    await expect(form().getByLabel('Service address').inputValue()).resolves.toBe(service);
    await connectWithKey(service, demo.api_key, second, 'Second grower');
    // Connected: the panel closes and the new (empty) account is shown.
    await expect.poll(() => settings().count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.locator('.statusbar select').inputValue(), { timeout: 30_000 }).toBe(second);
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBe(0);

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await expect.poll(() => listed().count()).toBe(2);
    await settings().getByRole('button', { name: 'Show Demo grower' }).click();
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(12);
    await expect(page.locator('.statusbar select').inputValue()).resolves.toBe(demo.account_id);

    // The same account a second time, with its account token: its credentials and label are replaced, not doubled.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await expect.poll(() => listed().count()).toBe(2);
    await page.screenshot({ path: join(SHOTS, 'app-settings.png') });
    copyFileSync(join(SHOTS, 'app-settings.png'), join(ROOT, 'docs/img/app-settings.png'));
    await form().getByLabel('Account token', { exact: true }).check();
    await form().getByLabel('Token', { exact: true }).fill(demo.account_access);
    await form().getByLabel('Label (optional)').fill('Demo by token');
    await form().getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => settings().count(), { timeout: 30_000 }).toBe(0);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await expect.poll(() => listed().count()).toBe(2);
    await expect.poll(() => settings().getByRole('listitem', { name: 'Account Demo by token' }).textContent()).toMatch(/\(shown\).*token/);
  }, 180_000);

  it('refuses to disconnect an account with unsynced work, says how much, and disconnects once it is discarded', async () => {
    await page.keyboard.press('Escape');
    await expect.poll(() => settings().count()).toBe(0);
    const { cx, cy } = await mapCentre(page);
    await drawSquare(page, cx, cy, 20, 'Not yet sent');

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    // The empty second account goes at once.
    await settings().getByRole('button', { name: 'Disconnect Second grower' }).click();
    await expect.poll(() => listed().count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/Disconnected Second grower.*The service keeps its data/);

    await settings().getByRole('button', { name: 'Disconnect Demo by token' }).click();
    const refusal = settings().getByRole('listitem', { name: 'Account Demo by token' }).getByRole('alert');
    await expect.poll(() => refusal.textContent(), { timeout: 30_000 }).toMatch(/has work not yet on the service \(1 queued\)/);
    await expect(listed().count()).resolves.toBe(1);
    await settings().getByRole('button', { name: 'Discard unsynced work and disconnect' }).click();
    // No account left: back to the first run's form.
    await expect.poll(() => page.getByRole('heading', { name: 'Connect a service' }).isVisible(), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/1 unsynced change\(s\) discarded/);
    expect(await problems()).toEqual([]);
  }, 180_000);
});
