// Conflicts settled in the app end to end, as app.test.ts runs it (`npm start`'s launcher with the embedded demo
// service, Debian's Chromium): a demo parcel renamed in the app and on the service over its HTTP API (as curl
// would), Sync now, the panel showing both names side by side and the status line naming the open conflict (still
// after another sync's message); Keep theirs takes the service's name, synced. Then a metadata value changed on both
// sides, Keep mine, Sync now, and the service holding mine. Then a rename and a metadata value on both sides settled
// field by field (the service's name, my value), and the service holding that mix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { openApp, startDemoApp, waitOnline, type DemoApp, type RunningApp } from './app-harness.ts';

let ctx: DemoApp;
let dir: string;
let app: RunningApp;
let service: string;
let browser: Browser;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-conflicts-');
  ({ dir, app, service, browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

interface ServiceParcel { id: number; properties: { name: string; metadata: Record<string, unknown> } }

/** A request to the service's HTTP API with the demo's key and account, as curl would send it. */
async function onService(method: string, path: string, body?: unknown): Promise<unknown> {
  const { api_key: key } = JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string };
  const account = /account\s+(acc-[\w-]+)/.exec(app.err())![1]!;
  const r = await fetch(`${service}${path}`, {
    method, headers: { 'x-api-key': key, 'service-account': account, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  expect(r.status, `${method} ${path}`).toBe(200);
  return r.json();
}

async function serviceParcel(name: string): Promise<ServiceParcel> {
  for (const f of await onService('GET', '/api/farms/') as { id: number }[]) {
    const hit = (await onService('GET', `/api/farms/${f.id}/parcels/`) as { features: ServiceParcel[] }).features.find((p) => p.properties.name === name);
    if (hit) return hit;
  }
  throw new Error(`no parcel ${name} on the service`);
}

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const field = async (f: string) => (await page.locator(`[data-field=${f}]`).textContent()) ?? '';
const conflictsNote = async () => ((await page.getByRole('status', { name: 'Conflicts' }).count()) ? await page.getByRole('status', { name: 'Conflicts' }).textContent() : null);
const sideOf = (f: string, side: 'mine' | 'theirs') => page.locator(`.conflict [data-conflict-field="${f}"] td[data-side=${side}]`).textContent();
const editor = () => page.getByRole('form', { name: 'Edit parcel' });

/** Opens a parcel's panel through the search box, as a user finds it. */
async function select(query: string, name: string): Promise<void> {
  await page.locator('.top h1').click();
  await page.keyboard.press('/');
  await page.keyboard.type(query);
  await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(new RegExp(`^${name}`));
  await page.keyboard.press('Enter');
  await poll(() => field('name')).toBe(name);
}

/**
 * Sync now, until that sync ended: the button is seen busy (aria-busy; a MutationObserver, however short the sync)
 * and then no longer busy; the message alone could still be the last sync's.
 */
async function syncNow(): Promise<void> {
  const button = page.getByRole('button', { name: 'Sync now' });
  await poll(() => button.isEnabled()).toBe(true);
  await button.evaluate((el) => {
    const w = window as unknown as { __synced: boolean };
    w.__synced = false;
    new MutationObserver((_, obs) => { if (el.getAttribute('aria-busy') === 'true') { w.__synced = true; obs.disconnect(); } }).observe(el, { attributes: true });
  });
  await button.click();
  await poll(async () => await page.evaluate(() => (window as unknown as { __synced: boolean }).__synced) && await button.getAttribute('aria-busy') === null).toBe(true);
  await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Synced: /);
}

describe('conflicts in the app', () => {
  it('shows a rename on both sides side by side, names it in the status line until settled, and Keep theirs takes the service\'s name', async () => {
    ({ page, problems } = await openApp(browser, app.url));
    await waitOnline(page);
    await select('Olivar B', 'Olivar B');
    const { id } = await serviceParcel('Olivar B');

    await editor().getByLabel('Name').fill('Olivar B (mine)');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await poll(() => field('name')).toBe('Olivar B (mine)');
    await onService('PATCH', `/api/parcels/${id}/`, { name: 'Olivar B (theirs)' });

    await syncNow();
    await poll(() => field('state')).toBe('Conflict');
    expect(await page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/1 in conflict/);
    await poll(() => sideOf('name', 'mine')).toBe('Olivar B (mine)');
    expect(await sideOf('name', 'theirs')).toBe('Olivar B (theirs)');
    expect(await page.getByRole('columnheader', { name: 'Theirs (on the service)' }).count()).toBe(1);
    await poll(conflictsNote).toBe('· 1 conflict — select the parcel marked ! (purple, cross-hatched) to settle it');
    await page.screenshot({ path: join(SHOTS, 'app-conflict.png') });

    // Another sync's message replaces "1 in conflict"; the open conflict is still named beside it.
    await syncNow();
    expect(await page.getByRole('status', { name: 'Message' }).textContent()).not.toMatch(/in conflict/);
    expect(await conflictsNote()).toBe('· 1 conflict — select the parcel marked ! (purple, cross-hatched) to settle it');

    await page.getByRole('button', { name: 'Keep theirs' }).click();
    await poll(() => field('name')).toBe('Olivar B (theirs)');
    await poll(() => field('state')).toBe('Synced');
    expect(await page.locator('.conflict').count()).toBe(0);
    await poll(conflictsNote).toBeNull();
    await syncNow();
    expect((await serviceParcel('Olivar B (theirs)')).id).toBe(id);
    expect(await field('state')).toBe('Synced');
  }, 180_000);

  it('Keep mine on a metadata value changed on both sides sends mine at the next sync', async () => {
    await select('S-77', 'Almond orchard');
    const before = await serviceParcel('Almond orchard');
    const keys = await editor().locator('input[aria-label^="Key "]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    const n = keys.indexOf('Supplier ID') + 1;
    expect(n).toBeGreaterThan(0);
    await editor().getByLabel(`Value ${n}`, { exact: true }).fill('S-78 mine');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await poll(() => field('state')).toBe('Pending');
    await onService('PATCH', `/api/parcels/${before.id}/`, { metadata: { ...before.properties.metadata, 'Supplier ID': 'S-79 theirs' } });

    await syncNow();
    await poll(() => field('state')).toBe('Conflict');
    await poll(() => sideOf('metadata.Supplier ID', 'mine')).toBe('S-78 mine');
    expect(await sideOf('metadata.Supplier ID', 'theirs')).toBe('S-79 theirs');
    await poll(conflictsNote).toBe('· 1 conflict — select the parcel marked ! (purple, cross-hatched) to settle it');

    await page.getByRole('button', { name: 'Keep mine' }).click();
    await poll(() => field('state')).toBe('Pending');
    await poll(conflictsNote).toBeNull();
    // The conflict's buttons are gone: the focus is on the parcel's heading, not the page's body.
    await poll(() => page.evaluate(() => document.activeElement?.id ?? '')).toBe('panel-title');
    // Pending for no error: no reason shown at all, and never in red.
    expect(await page.locator('[data-field=reason].error').count()).toBe(0);
    await syncNow();
    await poll(() => field('state')).toBe('Synced');
    expect((await serviceParcel('Almond orchard')).properties.metadata['Supplier ID']).toBe('S-78 mine');
    expect(await problems()).toEqual([]);
  }, 180_000);

  it('field by field: the service\'s name and my certification, Keep chosen, and the service holds that mix', async () => {
    await select('Olivar C', 'Olivar C');
    const before = await serviceParcel('Olivar C');
    await editor().getByLabel('Name').fill('Olivar C (mine)');
    const keys = await editor().locator('input[aria-label^="Key "]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    const n = keys.indexOf('certification') + 1;
    await editor().getByLabel(`Value ${n}`, { exact: true }).fill('Demeter');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await poll(() => field('state')).toBe('Pending');
    await onService('PATCH', `/api/parcels/${before.id}/`, { name: 'Olivar C (theirs)', metadata: { ...before.properties.metadata, certification: 'GlobalG.A.P.' } });

    await syncNow();
    await poll(() => field('state')).toBe('Conflict');
    await poll(() => sideOf('name', 'theirs')).toBe('Olivar C (theirs)');
    expect(await sideOf('metadata.certification', 'mine')).toBe('Demeter');
    // Keep chosen waits for a choice on every row.
    const chosen = page.getByRole('button', { name: 'Keep chosen' });
    expect(await chosen.isDisabled()).toBe(true);
    await page.getByRole('radio', { name: "Name: keep the service's" }).check();
    expect(await chosen.isDisabled()).toBe(true);
    await page.getByRole('radio', { name: 'certification: keep mine' }).check();
    await page.screenshot({ path: join(SHOTS, 'app-conflict-fields.png') });
    await chosen.click();
    await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toBe("Kept 1 field of mine and 1 field of the service's: Olivar C (theirs) is sent to the service at the next sync.");
    await poll(() => field('name')).toBe('Olivar C (theirs)');
    await poll(() => field('state')).toBe('Pending');
    await syncNow();
    await poll(() => field('state')).toBe('Synced');
    const after = await serviceParcel('Olivar C (theirs)');
    expect(after.id).toBe(before.id);
    expect(after.properties.metadata.certification).toBe('Demeter');
    expect(await problems()).toEqual([]);
  }, 180_000);
});
