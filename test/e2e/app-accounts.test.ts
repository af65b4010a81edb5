// The Accounts screen, as app.test.ts runs the app (`npm start`'s launcher with the embedded demo service and its
// account connected with the organization's key, Debian's Chromium at 1280x800): opened with A, the organization's
// accounts as the service lists them; an account created by e-mail (a bad address refused first, nothing created),
// switched to with Show; two accounts deactivated from the confirmation that states the orphan consequence with
// counts and hectares — one keeping its farms (still billed, over the service's HTTP API), one deleting them first —
// and, for an account connected with its own bearer token, its expiry shown, then expired (the sync blocked, the way
// out said), a token of another account refused, and a new token pasted that resumes the sync. Then two
// organizations of one name on the service, told apart by their ids' ends; and one whose key the service no longer
// knows (its data reset, another service at the address: here, its key revoked), shown stale with what its accounts
// never sent and an export of just those parcels, its accounts removed once the user confirms losing that work — the
// app then showing another account at once, nothing of the removed ones left on the page. Along the way, the focus
// never falls to the page's body (Create account, a Sync in Sync details, the removal), a new account without farms
// says how to save a drawn parcel, and an account whose only farm is empty opens again where the map was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { pointParcel } from '../helpers/service.ts';
import { SHOTS } from './embed-harness.ts';
import { drawSquare, lonLatAt, mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { signAccountAccess } from '../../service/store/tokens.ts';
import type { Store } from '../../service/store/store.ts';
import { openDataDirStore } from '../helpers/store.ts';
import { DEMO_ORG } from '../../service/demo.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;
let problems: () => Promise<string[]>;
let serviceStore: Store;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-accounts-');
  ({ browser } = ctx);
  // The running service's database, opened beside it: a token with a short life, signed with the organization's key.
  serviceStore = await openDataDirStore(join(ctx.dir, 'data'));
}, 150_000);

afterAll(async () => {
  await serviceStore?.close();
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const key = () => (JSON.parse(readFileSync(join(ctx.dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string }).api_key;
/** The service's HTTP API with the organization's key (and an account header when given). */
async function http(method: string, path: string, body?: unknown, account?: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await fetch(`${ctx.service}${path}`, {
    method, headers: { 'x-api-key': key(), ...(account ? { 'service-account': account } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}
/** An account made on the service, with a farm of point parcels of these hectares when given. */
async function serviceAccount(email: string, hectares: number[] = []): Promise<{ id: string; account_access: string }> {
  const made = await http('POST', '/api/accounts/', { account_email: email });
  expect(made.status).toBe(201);
  if (hectares.length) expect((await http('POST', '/api/farms/', { farm: { name: `Farm of ${email}` }, parcels: hectares.map((h, i) => pointParcel(`P${i}`, h, -4 + i * 0.01, 37)) }, made.body.id)).status).toBe(201);
  return made.body;
}
const billed = async (id: string) => ((await http('GET', '/api/billing/')).body.accounts as { account: string; state: string; farms: number; hectares: number }[]).find((a) => a.account === id);

const panel = () => page.getByRole('dialog', { name: 'Accounts' });
const orgTable = () => panel().getByRole('table', { name: `Accounts of Furrow Demo Co-op at ${ctx.service}` });
const row = (id: string) => panel().locator(`tr[data-account="${id}"]`);
const message = () => page.getByRole('status', { name: 'Message' }).textContent();
const confirm = () => page.getByRole('alertdialog');
/** The organizations' headings (not the section of accounts on their own token). */
const headings = async () => (await panel().locator('section.org h3').allTextContents()).filter((t) => t.includes(' at http'));

/** The focused element, told apart from any other (its tag, class and name); 'body' for the page's body. */
const where = () => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return 'body';
  return `${el.tagName}.${el.className}|${el.getAttribute('aria-label') ?? el.textContent?.slice(0, 40) ?? ''}`;
});

async function openAccounts(): Promise<void> {
  if (await panel().count()) return;
  await page.locator('.top h1').click();
  await page.keyboard.press('a');
  await poll(() => panel().isVisible()).toBe(true);
}

describe('the Accounts screen', () => {
  it("lists the organization's accounts, creates one by e-mail and switches to it", async () => {
    ({ page, problems } = await openApp(browser, ctx.app.url));
    await poll(() => shownOn(page), 60_000).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await openAccounts();
    await poll(() => orgTable().locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
    await expect(orgTable().locator('tbody tr').first().textContent()).resolves.toMatch(/Demo grower.*Active.*Synced.*API key: never expires.*Shown/);

    const form = panel().getByRole('form', { name: `Create an account in Furrow Demo Co-op at ${ctx.service}` });
    const before = (await http('GET', '/api/accounts/')).body.length as number;
    await form.getByLabel("New account's e-mail").fill('not-an-email');
    await form.getByRole('button', { name: 'Create account' }).click();
    await poll(() => form.getByRole('alert').textContent()).toMatch(/like grower@example.com/);
    await expect(form.getByLabel("New account's e-mail").getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await http('GET', '/api/accounts/')).body).toHaveLength(before);

    await form.getByLabel("New account's e-mail").fill('new-grower@example.com');
    await form.getByLabel('Label (optional)').fill('New grower');
    await form.getByRole('button', { name: 'Create account' }).click();
    await poll(message).toMatch(/Created new-grower@example.com .* connected it here/);
    // The button kept the focus while it worked (busy, not disabled): not the page's body.
    await poll(where).toBe('BUTTON.|Create account');
    const made = ((await http('GET', '/api/accounts/')).body as { id: string; account_email: string; state: string }[]).find((a) => a.account_email === 'new-grower@example.com')!;
    expect(made.state).toBe('active');
    await poll(() => row(made.id).textContent()).toMatch(/New grower.*new-grower@example.com.*Active/);

    // Show: the map switches to it at once (empty), the screen closes.
    await row(made.id).getByRole('button', { name: 'Show New grower' }).click();
    await poll(() => panel().count()).toBe(0);
    await poll(() => page.locator('.statusbar select').inputValue()).toBe(made.id);
    await poll(() => shownOn(page)).toBe(0);

    // A parcel drawn in it: it has no farm yet, and the panel says so, with the way to make one, beside a Save that
    // cannot save yet (not an empty Farm select with nothing said).
    const { cx, cy } = await mapCentre(page);
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    for (const [dx, dy] of [[-30, -30], [30, -30], [30, 30], [-30, 30]] as const) await page.mouse.click(cx + dx, cy + dy);
    await page.keyboard.press('Enter');
    const newParcel = page.getByRole('form', { name: 'New parcel' });
    await poll(() => page.locator('#new-parcel-no-farm').textContent()).toMatch(/^Create a farm first: a parcel is saved into a farm, and this account has none yet\./);
    expect(await newParcel.getByRole('button', { name: 'Save parcel' }).isDisabled()).toBe(true);
    expect(await newParcel.getByRole('combobox').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-no-farm.png') });
    await newParcel.getByRole('button', { name: 'Create a farm' }).click();
    const farmForm = page.getByRole('form', { name: 'Create farm' });
    await poll(() => farmForm.getByLabel('Farm name').evaluate((e) => e === document.activeElement)).toBe(true);
    await page.keyboard.type('Empty farm');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.farms').textContent()).toContain('Empty farm');
    // The drawing is still there, and can be saved into the new farm now.
    await poll(() => newParcel.getByRole('button', { name: 'Save parcel' }).isEnabled()).toBe(true);
    expect(await newParcel.getByLabel('Farm').locator('option:checked').textContent()).toBe('Empty farm');
    await newParcel.getByRole('button', { name: 'Discard' }).click();

    // Its only farm is empty: moved somewhere and reloaded, the map opens where it was, not on the whole world.
    await page.locator('.map').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('+');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(800); // the moves' animations, and the view kept (after a moment's quiet)
    const scale = await page.locator('.ol-scale-line-inner').textContent();
    const [lon, lat] = await lonLatAt(page, cx, cy);
    await page.reload();
    await poll(() => page.locator('.statusbar select').inputValue()).toBe(made.id);
    await poll(() => page.locator('.farms').textContent()).toContain('Empty farm');
    await poll(() => page.locator('.ol-scale-line-inner').textContent()).toBe(scale);
    const [lon2, lat2] = await lonLatAt(page, cx, cy);
    expect(Math.abs(lon2 - lon)).toBeLessThan(1e-4);
    expect(Math.abs(lat2 - lat)).toBeLessThan(1e-4);
  }, 180_000);

  it('deactivates an account after saying its farms would stay as billed orphans, and another deleting its farms first', async () => {
    const keepFarms = await serviceAccount('orphans@example.com', [3, 4.5]);
    const dropFarms = await serviceAccount('cleared@example.com', [2, 2, 1]);
    await openAccounts();
    await panel().getByRole('button', { name: 'Refresh' }).click();
    await poll(() => row(keepFarms.id).textContent()).toMatch(/orphans@example.com.*Active.*Not connected here/);

    await row(keepFarms.id).getByRole('button', { name: 'Deactivate orphans@example.com' }).click();
    await poll(() => confirm().textContent()).toMatch(/Its 1 farm with 2 parcels \(7\.50 ha\) stays on the service and keeps being billed, but no one can reach it through the API any more: billed orphans/);
    await expect(confirm().getByRole('button', { name: 'Keep the account' }).evaluate((b) => b === document.activeElement)).resolves.toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-deactivate.png') });
    // Esc keeps it: nothing happened on the service.
    await page.keyboard.press('Escape');
    await poll(() => confirm().count()).toBe(0);
    await expect(panel().isVisible()).resolves.toBe(true);
    expect((await http('GET', `/api/accounts/${keepFarms.id}/`)).body.state).toBe('active');

    await row(keepFarms.id).getByRole('button', { name: 'Deactivate orphans@example.com' }).click();
    await poll(() => confirm().getByRole('button', { name: 'Deactivate', exact: true }).isEnabled()).toBe(true);
    await confirm().getByRole('button', { name: 'Deactivate', exact: true }).click();
    await poll(message).toMatch(/Deactivated orphans@example.com: its 1 farm \(7\.50 ha\) stays on the service, billed/);
    expect((await http('GET', `/api/accounts/${keepFarms.id}/`)).body.state).toBe('deactivated');
    expect(await billed(keepFarms.id)).toMatchObject({ state: 'deactivated', farms: 1, hectares: 7.5 });
    await poll(() => row(keepFarms.id).textContent()).toMatch(/Deactivated \d{4}-\d\d-\d\d/);
    await expect(row(keepFarms.id).getByRole('button', { name: /Deactivate/ }).count()).resolves.toBe(0);

    await row(dropFarms.id).getByRole('button', { name: 'Deactivate cleared@example.com' }).click();
    await poll(() => confirm().textContent()).toMatch(/Its 1 farm with 3 parcels \(5\.00 ha\)/);
    await confirm().getByLabel(/Delete its 1 farm with 3 parcels \(5\.00 ha\) first/).check();
    await confirm().getByRole('button', { name: 'Delete 1 farm and deactivate' }).click();
    await poll(message).toMatch(/Deactivated cleared@example.com: its 1 farm \(5\.00 ha\) was deleted first/);
    expect(await billed(dropFarms.id)).toMatchObject({ state: 'deactivated', farms: 0, hectares: 0 });
  }, 180_000);

  it("shows a bearer account's token expiry, blocks it when expired with the way out, refuses another account's token and resumes with a pasted one", async () => {
    const grower = await serviceAccount('token-grower@example.com');
    const other = await serviceAccount('someone-else@example.com');
    // A token that expires 15 s from now, as if issued 3 hours ago minus that: long enough to connect it and read its
    // expiry on a loaded machine (measured: 2 s at load 7), short enough not to hold the test suite (the test waits
    // for the expiry: it was 25 s).
    const short = (await signAccountAccess(serviceStore, grower.id, { nowSeconds: Math.floor(Date.now() / 1000) - 3 * 3600 + 15 })).token;
    await panel().getByRole('button', { name: 'Close accounts' }).click();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const connect = page.getByRole('form', { name: 'Connect another service' });
    await connect.getByLabel('Account token', { exact: true }).check();
    await connect.getByLabel('Token', { exact: true }).fill(short);
    await connect.getByLabel('Label (optional)').fill('Token grower');
    await connect.getByRole('button', { name: 'Connect' }).click();
    await poll(() => page.locator('.statusbar select').inputValue()).toBe(grower.id);

    await openAccounts();
    // One of the organization's accounts, connected here with its own token: its expiry, near.
    await poll(() => row(grower.id).textContent()).toMatch(/Token grower.*token-grower@example.com.*Active.*⚠ Expires in under a minute/);
    // Expired: the next sync is blocked, and the screen says so with the way out.
    const exp = (JSON.parse(Buffer.from(short.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number }).exp;
    await page.waitForTimeout(Math.max(0, exp * 1000 + 1500 - Date.now()));
    await panel().getByRole('button', { name: 'Close accounts' }).click();
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    await poll(message).toMatch(/Sync needs you: Invalid token/);
    await openAccounts();
    const r = () => panel().locator(`tr[data-account="${grower.id}"]`);
    await poll(() => r().textContent()).toMatch(/Blocked: Invalid token.*Paste a new token, or get one from its token provider\..*✖ Expired/);
    // The token's controls open by themselves for an expired token.
    await poll(() => r().getByRole('button', { name: 'Token of Token grower' }).getAttribute('aria-expanded')).toBe('true');
    const paste = panel().getByRole('form', { name: 'New token for Token grower' });
    await expect(panel().getByRole('form', { name: 'Token provider for Token grower' }).getByRole('button', { name: 'Get new token now' }).isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-accounts.png') });
    copyFileSync(join(SHOTS, 'app-accounts.png'), join(ROOT, 'docs/img/app-accounts.png'));

    await paste.getByLabel('Paste new token').fill(other.account_access);
    await paste.getByRole('button', { name: 'Save token' }).click();
    await poll(() => paste.getByRole('alert').textContent()).toMatch(new RegExp(`This token is for account ${other.id}, not for ${grower.id}`));
    await expect(paste.getByLabel('Paste new token').inputValue()).resolves.toBe('');

    const fresh = (await http('POST', `/api/accounts/${grower.id}/token/`)).body.account_access as string;
    await paste.getByLabel('Paste new token').fill(fresh);
    await paste.getByRole('button', { name: 'Save token' }).click();
    // A fresh 3-hour token. The panel's clock ticks every 30 s (AccountsPanel.tsx useNow): until its next tick, a token
    // issued after the last one reads 3 h 00 min, then 2 h 59 min. Waiting for the latter alone held the test up to
    // half a minute after the row said Synced (measured: Synced at 1 s, 2 h 59 at 29 s).
    await poll(() => r().textContent()).toMatch(/Token grower.*Synced.*Expires in (3 h 00|2 h 59) min/);
    await waitOnline(page);
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage, ...sessionStorage })))).not.toContain(fresh);
    expect(await problems()).toEqual([]);
  }, 180_000);

  it('names each by its name on the service, told apart by its id where two share a name', async () => {
    await openAccounts();
    await panel().getByRole('button', { name: 'Refresh' }).click();
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
    // A second one, labelled: named by its label, never by its id.
    await create.getByLabel("New account's e-mail").fill('north@second.example');
    await create.getByLabel('Label (optional)').fill('Cooperative north');
    await create.getByRole('button', { name: 'Create account' }).click();
    await poll(() => second.locator('tr[data-account]').count()).toBe(2);
    // Named by its e-mail everywhere, never by its id.
    await second.getByRole('button', { name: 'Show field@second.example' }).click();
    await poll(() => page.locator('.statusbar select option:checked').textContent()).toBe(`field@second.example · ${ctx.service}`);

    // The service forgets the key (as when its data is reset): every request with it is now 401.
    const secondOrg = (await serviceStore.organizations.get((await serviceStore.accounts.get(accountId))!.organization_id))!;
    for (const k of await serviceStore.apiKeys.list(secondOrg.id)) if (!k.revoked) await serviceStore.apiKeys.revoke(secondOrg.id, k.prefix);
    // Work made here meanwhile: a farm and a parcel in it the service will never get through this key.
    await page.getByRole('button', { name: 'Create farm' }).click();
    await page.getByRole('form', { name: 'Create farm' }).getByLabel('Farm name').fill('Never sent');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.farms').textContent()).toContain('Never sent');
    const { cx, cy } = await mapCentre(page);
    await drawSquare(page, cx, cy, 30, 'Unsent field');

    // Sync now: blocked, said with where to go about it (the Accounts screen explains a forgotten organization), the
    // account by its name; the button keeps the focus through the sync.
    await page.getByRole('button', { name: 'Sync now' }).click();
    await poll(message).toBe('Sync needs you: Invalid API key — the service no longer knows its organization: see Accounts (A), to export its unsent work and remove it.');
    expect(await where()).toBe('BUTTON.|Sync now');
    await page.screenshot({ path: join(SHOTS, 'app-accounts-needs-you.png') });
    // Another account synced from Sync details: named by its label, not "acc-…"; its Sync button keeps the focus.
    await page.getByRole('button', { name: /^Sync details/ }).click();
    const cockpit = page.getByRole('dialog', { name: 'Sync details' });
    await cockpit.getByRole('button', { name: 'Sync Cooperative north' }).click();
    await poll(message).toMatch(/^Cooperative north needs you: Invalid API key — .*see Accounts \(A\)/);
    expect(await message()).not.toContain('acc-');
    await poll(where).toBe('BUTTON.|Sync Cooperative north');
    await page.keyboard.press('Escape');
    await poll(() => cockpit.count()).toBe(0);

    await openAccounts();
    await panel().getByRole('button', { name: 'Refresh' }).click();
    const stale = panel().locator('section.org.stale');
    await poll(() => stale.count()).toBe(1);
    await poll(() => stale.getByRole('alert').textContent()).toContain(`no longer knows ${DEMO_ORG}'s API key`);
    expect(await stale.getByRole('alert').textContent()).toContain(`It now answers for ${DEMO_ORG} (…${other.id.slice(-6)}).`);
    const item = stale.locator(`li[data-account="${accountId}"]`);
    await poll(() => item.textContent()).toContain('field@second.example');
    expect(await item.textContent()).toContain('2 changes not sent');
    // Nothing unsent: nothing to export.
    expect(await stale.locator('li', { hasText: 'Cooperative north' }).getByRole('button').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-stale.png') });

    // Its export holds what the service never got (the parcel), not every parcel; its buttons are named for it.
    const exportButton = item.getByRole('button', { name: 'Export the unsent work of field@second.example as GeoJSON', exact: true });
    const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
    const file = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { features: { properties: { name: string } }[] };
    expect(file.features.map((f) => f.properties.name)).toEqual(['Unsent field']);
    await poll(message).toBe(`Exported the 1 parcel with changes field@second.example never sent to ${download.suggestedFilename()}. 1 other change (a farm's, a crop's or a deletion) is not a parcel and cannot be exported.`);
    await poll(() => item.textContent()).toContain('exported');

    await stale.getByRole('button', { name: /^Remove 2 stale accounts/ }).click();
    const confirm = stale.getByRole('group', { name: 'Confirm removing the stale accounts' });
    // The export acknowledged: the parcel is in the file, the farm alone is lost.
    expect(await confirm.textContent()).toContain('The unsent parcels of field@second.example were exported above');
    expect(await confirm.textContent()).toMatch(/1 change that is not a parcel \(a farm's, a crop's or a deletion\) is lost\./);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-stale-confirm.png') });
    await confirm.getByRole('button', { name: 'Remove, losing what was not sent' }).click();
    // Said truthfully (the service had them, once), and another account shown at once.
    await poll(message).toBe(`Removed 2 stale accounts from this computer: the service at ${ctx.service} no longer knows them. Showing Demo grower now.`);
    await poll(() => panel().locator('section.org.stale').count()).toBe(0);
    await poll(headings).toEqual([`${DEMO_ORG} at ${ctx.service} (its key with the account header)`]);
    // The focus is kept by the screen, not dropped to the page's body with the section that had it.
    await poll(where).toMatch(/^SECTION\.accounts-panel\|/);
    // Gone from the account chooser too, and nothing of the removed account left on the page.
    await poll(async () => (await page.locator('.statusbar select option').allTextContents()).some((t) => t.startsWith('field@second.example'))).toBe(false);
    const demoAccount = /account\s+(acc-[\w-]+)/.exec(ctx.app.err())![1]!;
    await poll(() => page.locator('.statusbar select').inputValue()).toBe(demoAccount);
    await panel().getByRole('button', { name: 'Close accounts' }).click();
    await poll(() => page.locator('.farms').textContent()).toContain('Finca El Olivar');
    expect(await page.locator('.farms').textContent()).not.toContain('Never sent');
    await poll(() => shownOn(page)).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'app-accounts-stale-removed.png') });
    await page.getByRole('button', { name: 'Sync now' }).click();
    await poll(message).toMatch(/^Synced: /);
    expect(await problems()).toEqual([]);
  }, 180_000);
});
