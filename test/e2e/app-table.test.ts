// Every parcel as a table (issue 33), as app.test.ts runs the app (`npm start`'s launcher with the embedded demo
// service, Debian's Chromium at 1280x800): a farm of 700 parcels pulled from the service, the table opened with its
// key, filtered by a metadata column, 500 rows selected (a click, a scroll, a shift-click: the rows between were never
// in the page), a metadata key set on all of them as one edit — synced to the service — and undone in one step, synced
// back; and the selection both ways: a row picked selects the parcel on the map, a parcel clicked on the map is
// found and selected in the table, a shift-click on the map adds to the table's selection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { pointParcel } from '../helpers/service.ts';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-table-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const grid = () => page.getByRole('grid', { name: 'Parcels' });
const count = () => page.locator('.table-count').textContent();
/** The parcel `k` of the farm: where it lies. */
const spot = (k: number): [number, number] => [-5.2 + (k % 25) * 0.0012, 38.3 + Math.floor(k / 25) * 0.0012];
const name = (k: number) => `Lot ${String(k).padStart(3, '0')}`;
const row = (i: number) => page.locator(`[role=row][aria-rowindex="${i + 3}"]`);
const ROW_H = 26;

/** The page point of [lon, lat] on the map, from the cursor's read-out at two points (a small view is linear enough). */
async function pixelOf(lon: number, lat: number): Promise<{ x: number; y: number }> {
  const box = (await page.locator('.map .ol-viewport').boundingBox())!;
  const [x0, y0, x1, y1] = [box.x + 100, box.y + 60, box.x + box.width - 100, box.y + 200];
  const [lon0, lat0] = await lonLatAt(page, x0, y0);
  const [lon1, lat1] = await lonLatAt(page, x1, y1);
  return { x: x0 + ((lon - lon0) / (lon1 - lon0)) * (x1 - x0), y: y0 + ((lat - lat0) / (lat1 - lat0)) * (y1 - y0) };
}

describe('the attribute table', () => {
  it('filters a farm of 700 parcels, bulk edits 500 of them as one edit that syncs, and undoes it in one step', async () => {
    ({ page } = await openApp(browser, ctx.app.url));
    await poll(() => shownOn(page), 60_000).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    const svc = demoApi(ctx);
    // 700 parcels: every fifth of clay-free soil, so that a filter on soil shows 560.
    const parcel = (k: number) => ({ ...pointParcel(name(k), 0.5, ...spot(k)), metadata: { soil: k % 5 === 4 ? 'sand' : 'clay', lot: k } });
    const made = await svc.send('POST', '/api/farms/', { farm: { name: 'Table estate' }, parcels: [parcel(0)] });
    expect(made.status).toBe(201);
    const farmId = (made.body as { id: number }).id;
    for (let b = 0; b < 14; b++) {
      const r = await svc.send('POST', '/api/parcels/', { farm: { id: farmId }, parcels: Array.from({ length: 50 }, (_, i) => parcel(b * 50 + i + 1)).filter((p) => Number(p.metadata.lot) < 700) });
      expect(r.status).toBe(201);
    }
    await page.getByRole('button', { name: 'Sync now' }).click();
    const farm = page.locator('.farm', { hasText: 'Table estate' });
    await poll(() => farm.locator('.farm-stats').textContent(), 60_000).toMatch(/^700 parcels/);
    await farm.click();

    // K opens the table on the chosen farm: 700 rows, only a screen's worth of them in the page.
    await page.locator('.top h1').click();
    await page.keyboard.press('k');
    await poll(() => page.locator('#parcel-table-title').textContent()).toBe('Parcels of Table estate');
    await poll(count).toBe('700 rows');
    await poll(() => row(0).locator('[role=gridcell]').first().textContent()).toBe(name(0));
    expect(await page.locator('.trow').count()).toBeLessThan(60);
    for (const h of ['Name', 'Hectares', 'Farm', 'Sync state', 'Active crop', 'lot', 'soil']) await expect(grid().getByRole('columnheader', { name: h }).count()).resolves.toBe(1);

    // Filtered by soil, and sorted by lot, largest first.
    await page.getByLabel('Filter soil').fill('=clay');
    await poll(count).toBe('560 rows');
    await grid().getByRole('columnheader', { name: 'lot' }).getByRole('button').click();
    await grid().getByRole('columnheader', { name: 'lot' }).getByRole('button').click();
    await poll(() => row(0).locator('[role=gridcell]').first().textContent()).toBe(name(698));

    // 500 rows: the first clicked, the 500th reached by scrolling and shift-clicked.
    await row(0).click();
    await page.locator('.table-scroll').evaluate((el, y) => { el.scrollTop = y; }, 499 * ROW_H - 100);
    await poll(() => row(499).locator('[role=gridcell]').first().textContent()).toMatch(/^Lot \d{3}$/);
    await row(499).click({ modifiers: ['Shift'] });
    await poll(count).toBe('560 rows, 500 selected');
    // The map marks those in view.
    await poll(async () => Number(await page.locator('.map').getAttribute('data-marked'))).toBeGreaterThan(0);

    await page.getByLabel('Key to set').fill('status');
    await page.getByLabel('Value to set').fill('fallow');
    await page.getByRole('button', { name: 'Apply to 500' }).click();
    await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Set status on 500 parcels/);
    await page.screenshot({ path: join(SHOTS, 'app-table.png') });
    copyFileSync(join(SHOTS, 'app-table.png'), join(ROOT, 'docs/img/app-table.png'));

    // Synced: the service has the key on those 500, and the table says Synced.
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const fallow = async () => (await svc.parcels()).filter((p) => p.properties.metadata.status === 'fallow').length;
    // Looked at every second, not at vitest's 50 ms: each look lists the farm's 700 parcels from the service, and
    // looking back to back kept the service busy while the sync's 1,000 GETs and PATCHes waited (measured, load 7-10:
    // the push of the 500 edits 36 s with 50 ms, 24 s with 1 s; the undo's 26 s and 16 s). On a host twice as slow
    // (a clean-clone CI run of 1,620 s instead of 825) the push had reached 477 of the 500 at 90 s: the wait is 180 s.
    const synced = (n: number) => expect.poll(fallow, { timeout: 180_000, interval: 1000 }).toBe(n);
    await synced(500);
    await page.getByLabel('Filter status').fill('=fallow');
    await poll(count).toBe('500 rows, 500 selected');
    await page.getByLabel('Filter Sync state').fill('=synced');
    await poll(count, 60_000).toBe('500 rows, 500 selected');

    // One undo takes the key off all 500; synced, the service has none left.
    await page.locator('.top h1').click();
    await page.keyboard.press('Control+z');
    await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toBe('Undone: Bulk edit of 500 parcel(s): set status');
    await poll(count).toBe('0 rows, 500 selected');
    await page.keyboard.press('s');
    await synced(0);
  }, 480_000);

  it('selects both ways: a row picked is selected on the map, a parcel clicked on the map is found in the table, Shift adds one', async () => {
    for (const f of ['Filter status', 'Filter Sync state', 'Filter soil']) await page.getByLabel(f).fill('');
    await page.getByRole('button', { name: 'Clear selection' }).click();
    await poll(count).toBe('700 rows');
    // A row picked: the map selects that parcel (its panel opens), Enter zooms to it.
    await row(3).click();
    const picked = (await row(3).locator('[role=gridcell]').first().textContent())!;
    await poll(() => page.locator('[data-field=name]').textContent()).toBe(picked);
    await grid().press('Enter');
    // Another row picked without zooming; then the parcel in view clicked on the map: the table finds and selects it.
    await row(5).click();
    const other = (await row(5).locator('[role=gridcell]').first().textContent())!;
    await poll(() => page.locator('[data-field=name]').textContent()).toBe(other);
    const k = Number(picked.slice(4));
    await page.waitForTimeout(600); // the zoom's animation
    const at = await pixelOf(...spot(k));
    await page.mouse.click(at.x, at.y);
    await poll(() => page.locator('[data-field=name]').textContent()).toBe(picked);
    await poll(() => page.locator('.trow.selected [role=gridcell]:first-child').allTextContents()).toEqual([picked]);
    await poll(count).toBe('700 rows, 1 selected');
    // Shift-click on the map: a neighbour joins the selection; the map's own selection stays.
    const n = k % 25 === 24 ? k - 1 : k + 1;
    const next = await pixelOf(...spot(n));
    await page.keyboard.down('Shift');
    await page.mouse.click(next.x, next.y);
    await page.keyboard.up('Shift');
    await poll(count).toBe('700 rows, 2 selected');
    expect(await page.locator('[data-field=name]').textContent()).toBe(picked);
    await page.screenshot({ path: join(SHOTS, 'app-table-map.png') });
  }, 120_000);
});
