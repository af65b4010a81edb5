// Two organizations on one service, as a consultant meets them (issue 29, items 2 and 3): the Accounts screen names
// each by the name its service gives, with the end of its id where the names collide; and when the service stops
// knowing an organization's key (its data reset, another service at the address: here, the key revoked on the
// service), the accounts connected with it are shown stale, with what they never sent and an export, and can be
// removed from this computer once the user confirms losing the unsent work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import type { Store } from '../../service/store/store.ts';
import { openDataDirStore } from '../helpers/store.ts';
import { DEMO_ORG } from '../../service/demo.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;
let serviceStore: Store;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-orgs-');
  ({ browser } = ctx);
  serviceStore = await openDataDirStore(join(ctx.dir, 'data'));
}, 150_000);

afterAll(async () => {
  await serviceStore?.close();
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const panel = () => page.getByRole('dialog', { name: 'Accounts' });
const message = () => page.getByRole('status', { name: 'Message' }).textContent();
const headings = () => panel().locator('section.org h3').allTextContents();

async function openAccounts(): Promise<void> {
  if (await panel().count()) return;
  await page.locator('.top h1').click();
  await page.keyboard.press('a');
  await poll(() => panel().isVisible()).toBe(true);
}

describe('organizations on one service', () => {
  it('names each by its name on the service, told apart by its id where two share a name', async () => {
    ({ page } = await openApp(browser, ctx.app.url));
    await poll(() => shownOn(page), 60_000).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await openAccounts();
    await poll(headings).toEqual([`${DEMO_ORG} at ${ctx.service} (its key with the account header)`]);

    // A second organization of the very same name on the same service, its key added in the screen.
    const other = await serviceStore.organizations.create(DEMO_ORG);
    const demo = await serviceStore.organizations.findByName(DEMO_ORG);
    await panel().getByText('Add an organization by its API key').click();
    const form = panel().getByRole('form', { name: 'Add an organization' });
    await form.getByLabel('Service address').fill(ctx.service);
    await form.getByLabel('Organization API key').fill(other.api_key);
    await form.getByRole('button', { name: 'Add organization' }).click();
    await poll(async () => (await headings()).length).toBe(2);
    const both = await headings();
    expect(both).toContain(`${DEMO_ORG} (…${demo!.id.slice(-6)}) at ${ctx.service} (its key with the account header)`);
    expect(both).toContain(`${DEMO_ORG} (…${other.organization_id.slice(-6)}) at ${ctx.service} (its key with the account header)`);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-two-orgs.png') });
  }, 120_000);

  it("shows an organization whose key the service no longer knows as stale, with what its accounts never sent, and removes them", async () => {
    const other = (await serviceStore.organizations.findByName(DEMO_ORG))!;
    expect(await panel().locator('section.org').count()).toBe(2);
    // The second organization's section: not the demo's (findByName answers the oldest of the name).
    const second = panel().locator('section.org').filter({ hasNotText: other.id.slice(-6) });
    const create = second.getByRole('form', { name: /^Create an account in / });
    await create.getByLabel("New account's e-mail").fill('field@second.example');
    await create.getByRole('button', { name: 'Create account' }).click();
    await poll(message).toContain('field@second.example');
    await poll(() => second.locator('tr[data-account]').count()).toBe(1);
    const accountId = (await second.locator('tr[data-account]').getAttribute('data-account'))!;
    // Named by its e-mail everywhere, never by its id.
    await second.getByRole('button', { name: 'Show field@second.example' }).click();
    await poll(() => page.locator('.statusbar select option:checked').textContent()).toBe(`field@second.example · ${ctx.service}`);

    // The service forgets the key (as when its data is reset): every request with it is now 401.
    const secondOrg = (await serviceStore.organizations.get((await serviceStore.accounts.get(accountId))!.organization_id))!;
    for (const k of await serviceStore.apiKeys.list(secondOrg.id)) if (!k.revoked) await serviceStore.apiKeys.revoke(secondOrg.id, k.prefix);
    // Work made here meanwhile: a farm the service will never get through this key.
    await page.getByRole('button', { name: 'Create farm' }).click();
    await page.getByRole('form', { name: 'Create farm' }).getByLabel('Farm name').fill('Never sent');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.farms').textContent()).toContain('Never sent');

    await openAccounts();
    await panel().getByRole('button', { name: 'Refresh' }).click();
    const stale = panel().locator('section.org.stale');
    await poll(() => stale.count()).toBe(1);
    await poll(() => stale.getByRole('alert').textContent()).toContain(`no longer knows ${DEMO_ORG}'s API key`);
    expect(await stale.getByRole('alert').textContent()).toContain(`It now answers for ${DEMO_ORG} (…${other.id.slice(-6)}).`);
    const item = stale.locator(`li[data-account="${accountId}"]`);
    await poll(() => item.textContent()).toContain('field@second.example');
    expect(await item.textContent()).toContain('1 change not sent');
    expect(await item.getByRole('button', { name: 'GeoJSON' }).isEnabled()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-stale.png') });

    await stale.getByRole('button', { name: /^Remove 1 stale account/ }).click();
    const confirm = stale.getByRole('group', { name: 'Confirm removing the stale accounts' });
    expect(await confirm.textContent()).toContain('changes the service never got');
    await confirm.getByRole('button', { name: 'Remove, losing what was not sent' }).click();
    await poll(message).toContain('Removed 1 stale account');
    await poll(() => panel().locator('section.org.stale').count()).toBe(0);
    await poll(headings).toEqual([`${DEMO_ORG} at ${ctx.service} (its key with the account header)`]);
    // Gone from the account chooser too: one account left, so none to choose.
    await poll(() => page.locator('.statusbar select').count()).toBe(0);
  }, 180_000);
});
