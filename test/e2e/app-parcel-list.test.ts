// Parcels without the map (issue 29, item 17), as app.test.ts runs the app (`npm start`'s launcher with the embedded
// demo service, Debian's Chromium at 1280x800): the chosen farm's parcels listed beside the map with their hectares
// and sync state in words; one chosen from the keyboard is selected (the side panel shows it, the map moves to it);
// on the map itself, focused, ] and [ select the parcels in view one by one — the list follows and a live region says
// which — and Enter opens the selected one in the side panel. A farm of 1,200 parcels lists 50 at a time, turned with
// PageDown, and a parcel found by search is shown selected on its own page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pointParcel } from '../helpers/service.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-parcel-list-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const list = () => page.getByRole('listbox', { name: /^Parcels of / });
const options = () => list().getByRole('option');
const selectedOption = () => list().locator('[role=option][aria-selected=true] .parcel-name').textContent();
const field = (f: string) => page.locator(`[data-field=${f}]`).textContent();
/** The element with the keyboard's focus, as a selector-like word: what a test can compare. */
const focusedIn = (selector: string) => page.evaluate((s) => document.activeElement?.closest(s) !== null && document.activeElement !== document.body, selector);

describe("a farm's parcels without the map", () => {
  it('lists the farm\'s parcels with hectares and state, selects one from the keyboard, and the map\'s ] [ and Enter select and open the parcels in view', async () => {
    ({ page } = await openApp(browser, ctx.app.url));
    await poll(() => shownOn(page), 60_000).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    const farm = (await page.locator('.farm.current .farm-name').textContent())!;
    const count = Number(/^(\d+) parcel/.exec((await page.locator('.farm.current .farm-stats').textContent())!)![1]);
    await poll(() => page.locator('#parcel-list-title').textContent()).toBe(`Parcels of ${farm}`);
    await poll(() => options().count()).toBe(count);
    await expect(page.locator('#parcel-list-page').textContent()).resolves.toBe(`${count} parcels`);
    expect(await page.locator('.parcel-list .pager button').count()).toBe(0);
    // Name, hectares and the state in words, in name order.
    const texts = await options().allTextContents();
    for (const t of texts) expect(t).toMatch(/^.+\d+\.\d\d ha(Synced|Pending|Sending|Uncertain|Rejected|Conflict|Blocked)$/);
    const names = await list().locator('.parcel-name').allTextContents();
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));

    // From the keyboard: Tab reaches the list once (its first row), the arrows move, Enter selects.
    await options().first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await poll(() => page.evaluate(() => document.activeElement?.querySelector('.parcel-name')?.textContent)).toBe(names[2]);
    expect(await list().locator('[tabindex="0"]').count()).toBe(1);
    await page.keyboard.press('Enter');
    await poll(() => field('name')).toBe(names[2]);
    await poll(selectedOption).toBe(names[2]);
    // The map moved to it: its middle is inside the parcel's box.
    const svc = demoApi(ctx);
    const target = (await svc.parcel(names[2]!))!;
    const ring = target.geometry.coordinates[0]!;
    const [w, e] = [Math.min(...ring.map((p) => p[0]!)), Math.max(...ring.map((p) => p[0]!))];
    const [s, n] = [Math.min(...ring.map((p) => p[1]!)), Math.max(...ring.map((p) => p[1]!))];
    const { cx, cy } = await mapCentre(page);
    await poll(async () => {
      const [lon, lat] = await lonLatAt(page, cx, cy);
      return lon > w && lon < e && lat > s && lat < n;
    }, 10_000).toBe(true);
    await list().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'app-parcel-list.png') });

    // The map, focused: ] selects the next parcel in view, the list follows, the live region says it.
    await page.locator('.map').focus();
    // Zoomed to one parcel, few others are in view: - (the map's own key) zooms out to the farm's.
    for (let i = 0; i < 6 && await shownOn(page) < 6; i++) {
      const before = await page.locator('.ol-scale-line-inner').textContent();
      await page.keyboard.press('-');
      await poll(() => page.locator('.ol-scale-line-inner').textContent()).not.toBe(before);
      await page.waitForTimeout(500); // the view's read again once it settles
    }
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(6);
    const said = page.getByRole('status', { name: 'Selection' });
    const picked: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await field('name');
      await page.keyboard.press(']');
      await poll(() => field('name')).not.toBe(before);
      const now = (await field('name'))!;
      picked.push(now);
      await poll(selectedOption).toBe(now);
      await poll(() => said.textContent()).toMatch(new RegExp(`^${now.replace(/[()]/g, '\\$&')}, \\d+\\.\\d\\d ha, \\w+: \\d+ of \\d+ in view\\. Enter opens it\\.$`));
    }
    expect(new Set(picked).size).toBe(3);
    // [ goes back to the one before.
    await page.keyboard.press('[');
    await poll(() => field('name')).toBe(picked[1]);
    expect(await page.locator('.map').getAttribute('aria-keyshortcuts')).toBe('] [ Enter');
    // Enter opens it: the focus moves into the side panel, on the selected parcel.
    await page.keyboard.press('Enter');
    await poll(() => focusedIn('.side .panel')).toBe(true);

    // The keys are in the help.
    await page.locator('.top h1').click();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await poll(() => help.locator('dt').allTextContents()).toEqual(expect.arrayContaining(['] or [', '↑ or ↓', 'PageUp or PageDown']));
    await page.keyboard.press('Escape');
  }, 180_000);

  it('lists a farm of 1,200 parcels 50 at a time, and shows a parcel found by search on its page', async () => {
    const svc = demoApi(ctx);
    const made = await svc.send('POST', '/api/farms/', { farm: { name: 'Big estate' }, parcels: [pointParcel('Plot 0000', 0.5, -5, 38)] });
    expect(made.status).toBe(201);
    const farmId = (made.body as { id: number }).id;
    for (let b = 0; b < 24; b++) {
      const parcels = Array.from({ length: 50 }, (_, i) => { const k = b * 50 + i + 1; return pointParcel(`Plot ${String(k).padStart(4, '0')}`, 0.5, -5 + (k % 40) * 0.01, 38 + Math.floor(k / 40) * 0.01); });
      const r = await svc.send('POST', '/api/parcels/', { farm: { id: farmId }, parcels: b === 23 ? parcels.slice(0, 49) : parcels });
      expect(r.status).toBe(201);
    }
    await page.getByRole('button', { name: 'Sync now' }).click();
    const bigFarm = page.locator('.farm', { hasText: 'Big estate' });
    await poll(() => bigFarm.locator('.farm-stats').textContent(), 60_000).toMatch(/^1,?200 parcels/);
    await bigFarm.click();
    await poll(() => page.locator('#parcel-list-title').textContent()).toBe('Parcels of Big estate');
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('1–50 of 1,200');
    // Only a page's rows are in the page, however large the farm.
    expect(await options().count()).toBe(50);
    expect(await options().first().locator('.parcel-name').textContent()).toBe('Plot 0000');

    // PageDown turns the page, the focus on its first row; ArrowUp past the top goes back to the page before.
    await options().first().focus();
    await page.keyboard.press('PageDown');
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('51–100 of 1,200');
    await poll(() => page.evaluate(() => document.activeElement?.querySelector('.parcel-name')?.textContent)).toBe('Plot 0050');
    await page.keyboard.press('ArrowUp');
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('1–50 of 1,200');
    await poll(() => page.evaluate(() => document.activeElement?.querySelector('.parcel-name')?.textContent)).toBe('Plot 0049');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('51–100 of 1,200');

    // A parcel found by search: its page, selected.
    await page.locator('.top h1').click();
    await page.keyboard.press('/');
    await page.keyboard.type('Plot 0777');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(/^Plot 0777/);
    await page.keyboard.press('Enter');
    await poll(() => field('name')).toBe('Plot 0777');
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('751–800 of 1,200');
    await poll(selectedOption).toBe('Plot 0777');
    // In sight in the list's own scroll.
    await poll(async () => {
      const [row, box] = [await list().locator('[aria-selected=true]').boundingBox(), await list().boundingBox()];
      return row!.y >= box!.y && row!.y + row!.height <= box!.y + box!.height;
    }).toBe(true);
    await list().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'app-parcel-list-pages.png') });
  }, 180_000);

  it("shows nothing of the last account's farms once another, without farms, is shown", async () => {
    const key = (JSON.parse(readFileSync(join(ctx.dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string }).api_key;
    const made = await fetch(`${ctx.service}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: 'empty@example.com' }) });
    expect(made.status).toBe(201);
    const { id } = await made.json() as { id: string };
    // Nothing selected (a click beside the parcel, which fills the map's middle), then a page of the chosen farm turned.
    const map = (await page.locator('.map').boundingBox())!;
    await page.mouse.click(map.x + map.width - 80, map.y + 80);
    await poll(() => page.locator('[data-field=name]').count()).toBe(0);
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('1–50 of 1,200');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await poll(() => page.locator('#parcel-list-page').textContent()).toBe('51–100 of 1,200');

    await page.locator('.top h1').click();
    await page.keyboard.press('a');
    const accounts = page.getByRole('dialog', { name: 'Accounts' });
    await accounts.getByRole('button', { name: 'Refresh' }).click();
    const row = accounts.locator(`tr[data-account="${id}"]`);
    await row.getByRole('button', { name: 'Connect here: empty@example.com' }).click();
    await poll(() => row.getByRole('button', { name: /^Show / }).count()).toBe(1);
    await row.getByRole('button', { name: /^Show / }).click();
    await poll(() => page.locator('.statusbar select').inputValue()).toBe(id);
    await poll(() => shownOn(page)).toBe(0);
    await poll(() => page.locator('.parcel-list').count()).toBe(0);
  }, 120_000);
});
