// The app at 200 % browser zoom (issue 29, item 18), as app.test.ts runs it (`npm start`'s launcher with the
// embedded demo service, Debian's Chromium): 1280x800 at 200 % is a 640x400 CSS-pixel window, drawn at a device
// scale of 2 as Ctrl+ draws it. Checked by the boxes of what a person reads: the crop rotation table keeps a usable
// scroll area, the import preview stays inside its dialog and folds to show the map, the opened legend shows all of
// itself, the filter banner a quarter of the map at most, the legend covers neither the Layers button nor the
// hectare point's preview, a long status message is never cut (it wraps), and the header stays one line. A fit (a
// filter's matches, a farm clicked) leaves room for what covers the map at this size: the matches clear of the banner
// and the legend, a farm large and near the middle rather than small at the right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, startDemoApp, waitOnline, type DemoApp, type ServiceParcel } from './app-harness.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-zoom-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
type Box = { x: number; y: number; width: number; height: number };
const box = async (l: Locator): Promise<Box> => (await l.boundingBox())!;
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (a: Box, b: Box) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `app-zoom-${name}.png`) });
const away = () => page.locator('.top h1').click();

/** The page box of each parcel as the map shows it now, from their [lon, lat] (the map's cursor read-out at two points). */
async function onScreen(parcels: readonly ServiceParcel[]): Promise<Box[]> {
  await page.waitForTimeout(600); // the fit's animation
  const m = await box(page.locator('.map'));
  const [x1, y1, x2, y2] = [m.x + 20, m.y + 20, m.x + m.width - 20, m.y + m.height - 20];
  const [[lon1, lat1], [lon2, lat2]] = [await lonLatAt(page, x1, y1), await lonLatAt(page, x2, y2)];
  await away();
  const px = (lon: number, lat: number) => [x1 + ((lon - lon1) / (lon2 - lon1)) * (x2 - x1), y1 + ((lat - lat1) / (lat2 - lat1)) * (y2 - y1)] as const;
  return parcels.map((p) => {
    const pts = p.geometry.coordinates[0]!.map((c) => px(c[0]!, c[1]!));
    const xs = pts.map((q) => q[0]);
    const ys = pts.map((q) => q[1]);
    return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
  });
}
const union = (bs: readonly Box[]): Box => {
  const [x0, y0] = [Math.min(...bs.map((b) => b.x)), Math.min(...bs.map((b) => b.y))];
  return { x: x0, y: y0, width: Math.max(...bs.map((b) => b.x + b.width)) - x0, height: Math.max(...bs.map((b) => b.y + b.height)) - y0 };
};

describe('the app at 200 % zoom (640x400 CSS pixels)', () => {
  it('keeps the rotation table scrollable, the import preview in its dialog, the legend clear of the Layers button and the point preview, and the status message whole', async () => {
    const context = await browser.newContext({ viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 });
    page = await context.newPage();
    await page.goto(ctx.app.url);
    await waitOnline(page);
    await poll(() => page.locator('.legend .shown').textContent(), 60_000).toMatch(/^[1-9]\d* parcels? shown/);
    await shot('map');
    // The header is one line (the toolbar's buttons by their symbols, each still named), so the map keeps its height.
    expect((await box(page.locator('header.top'))).height).toBeLessThan(50);
    for (const name of ['Draw polygon', 'Drop hectare point', 'Modify', 'Delete', 'Undo', 'Redo', 'Sync now', 'Import', 'Settings']) {
      expect(await page.getByRole('toolbar', { name: 'Tools' }).getByRole('button', { name, exact: true }).isVisible()).toBe(true);
    }
    expect((await box(page.locator('.map'))).height).toBeGreaterThanOrEqual(250);

    // The legend and the Layers button, both on the map: apart, the legend folded or opened.
    const legend = page.locator('.legend');
    const basemap = page.locator('.layers-control > button');
    expect(await basemap.isVisible()).toBe(true);
    expect(overlap(await box(legend), await box(basemap))).toBe(false);
    const toggle = legend.getByRole('button', { name: 'Legend' });
    await toggle.click();
    await poll(() => toggle.getAttribute('aria-expanded')).toBe('true');
    await poll(() => legend.getByLabel('Colour by').isVisible()).toBe(true);
    await shot('legend');
    expect(overlap(await box(legend), await box(basemap))).toBe(false);
    // Opened, all of it in sight: nothing scrolled out of its box (the count and Plants were), the count beside the button.
    expect(await legend.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    for (const part of [legend.locator('.shown'), legend.locator('.plants-toggle'), legend.getByLabel('Colour by')]) expect(inside(await box(part), await box(legend))).toBe(true);
    expect(Math.abs((await box(legend.locator('.shown'))).y - (await box(toggle)).y)).toBeLessThan(12);
    await toggle.click();
    await poll(() => legend.getByLabel('Colour by').isVisible()).toBe(false);

    // A hectare point placed in the map's lower half, where the legend was: its square in sight, not under the legend.
    await away();
    await page.keyboard.press('p');
    const map = await box(page.locator('.map'));
    const at = { x: map.x + map.width / 2, y: map.y + map.height * 0.7 };
    await page.mouse.click(at.x, at.y);
    await poll(() => page.getByLabel('Hectares').count()).toBe(1);
    await shot('point');
    const l = await box(legend);
    expect(overlap(l, { x: at.x - 4, y: at.y - 4, width: 8, height: 8 })).toBe(false);
    await page.keyboard.press('Escape');
    await away();
    await page.keyboard.press('Escape');
    await poll(() => page.getByLabel('Hectares').count()).toBe(0);

    // The crop rotation table: its scroll area keeps rows to read.
    await away();
    await page.keyboard.press('r');
    const table = page.locator('.rotation-table');
    await poll(() => table.locator('tbody tr').count()).toBeGreaterThan(0);
    await shot('rotation');
    const wrap = await box(table.locator('.table-wrap'));
    expect(wrap.height).toBeGreaterThanOrEqual(120);
    expect(inside(wrap, await box(table))).toBe(true);
    await page.getByRole('button', { name: 'Close the rotation table' }).click();

    // The metadata filter's banner: a few short lines across the map's top, not half the map.
    await page.getByRole('textbox', { name: 'Filter key' }).fill('crop_type');
    await page.getByRole('textbox', { name: 'Filter value' }).fill('Olive');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const banner = page.getByRole('status', { name: 'Filter on' });
    await poll(() => banner.locator('[data-field=filter-matches]').textContent()).toMatch(/match(es)? in the account\.$/);
    await shot('filter');
    const mapBox = await box(page.locator('.map'));
    expect((await box(banner)).height).toBeLessThanOrEqual(mapBox.height * 0.25);
    expect(inside(await box(banner), mapBox)).toBe(true);
    expect(await banner.locator('.filter-words').getAttribute('title')).toBe('Only parcels with crop_type = Olive');
    // Show all matches: each of them in the map, none under the banner at its top or the legend at its bottom-left.
    const api = demoApi(ctx);
    const all = await api.parcels();
    const olives = all.filter((p) => p.properties.metadata.crop_type === 'Olive');
    expect(olives.length).toBeGreaterThan(0);
    await banner.getByRole('button', { name: 'Show all matches' }).click();
    const matches = await onScreen(olives);
    await shot('filter-matches');
    const [bannerBox, legendBox] = [await box(banner), await box(legend)];
    for (const [i, b] of matches.entries()) {
      const name = olives[i]!.properties.name;
      expect(inside(b, mapBox), `${name} in the map`).toBe(true);
      expect(overlap(b, bannerBox), `${name} under the filter banner`).toBe(false);
      expect(overlap(b, legendBox), `${name} under the legend`).toBe(false);
    }
    await banner.getByRole('button', { name: 'Clear filter' }).click();
    await poll(() => banner.count()).toBe(0);

    // A farm clicked: fitted large and about the middle, clear of the legend (not a small patch at the right).
    const farms = await api.get<{ id: number; name: string }[]>('/api/farms/');
    const hof = farms.find((f) => f.name === 'Hof Sonnenfeld')!;
    const hofParcels = (await api.get<{ features: ServiceParcel[] }>(`/api/farms/${hof.id}/parcels/`)).features;
    await page.getByRole('button', { name: /Hof Sonnenfeld/ }).click();
    const farm = union(await onScreen(hofParcels));
    await shot('farm-fit');
    const m2 = await box(page.locator('.map'));
    expect(inside(farm, m2), 'the farm in the map').toBe(true);
    expect(overlap(farm, await box(legend)), 'the farm under the legend').toBe(false);
    expect(Math.max(farm.width / m2.width, farm.height / m2.height), 'the farm fills much of the map').toBeGreaterThanOrEqual(0.45);
    expect((farm.x + farm.width / 2 - m2.x) / m2.width, 'the farm about the middle').toBeLessThanOrEqual(0.7);

    // The import preview: the table, the farm form and its buttons inside the dialog, the dialog inside the window.
    await page.getByLabel('File to import').setInputFiles(join(ROOT, 'test/fixtures/import-preview.geojson'));
    const dialog = page.locator('.import-dialog');
    await poll(() => dialog.locator('#import-summary').count()).toBe(1);
    await shot('import');
    const d = await box(dialog);
    expect(inside(d, { x: 0, y: 0, width: 640, height: 400 })).toBe(true);
    const importWrap = await box(dialog.locator('.table-wrap'));
    expect(importWrap.height).toBeGreaterThanOrEqual(60);
    // Each part, scrolled to within the dialog, is inside it: nothing spills past its edges.
    for (const l of [dialog.locator('#import-summary'), dialog.locator('.table-wrap'), dialog.getByRole('form', { name: 'Import into a farm' }), dialog.getByRole('button', { name: /^Import \d/ })]) {
      await l.scrollIntoViewIfNeeded();
      expect(inside(await box(l), await box(dialog))).toBe(true);
    }
    expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    // It covers the whole window, so it folds to show the map: by its Map button, and by a row's "Show on map",
    // to its title and summary at the window's foot; List unfolds it as it was.
    const fold = dialog.getByRole('button', { name: 'Map', exact: true });
    await fold.click();
    await poll(() => dialog.getByRole('button', { name: 'List', exact: true }).getAttribute('aria-expanded')).toBe('false');
    await shot('import-folded');
    const folded = await box(dialog);
    expect(folded.y).toBeGreaterThanOrEqual(400 * 0.55);
    expect(inside(await box(dialog.locator('#import-summary')), folded)).toBe(true);
    expect(await dialog.locator('.table-wrap').isVisible()).toBe(false);
    await dialog.getByRole('button', { name: 'List', exact: true }).click();
    await poll(() => dialog.locator('.table-wrap').isVisible()).toBe(true);
    expect(await dialog.getByLabel('New farm name').inputValue()).toBe('import-preview');
    await dialog.getByRole('button', { name: 'Show feature 3 on the map' }).click();
    await poll(() => dialog.locator('.table-wrap').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('List');
    await page.waitForTimeout(400); // the map's fit to the feature
    await shot('import-feature');
    await dialog.getByRole('button', { name: 'List', exact: true }).click();
    await dialog.getByRole('button', { name: 'Close the import preview' }).click();
    await poll(() => dialog.count()).toBe(0);

    // The status message (the last sync's, as long as any a sync says): all of it readable, none cut off.
    await away();
    await page.keyboard.press('s');
    const message = page.getByRole('status', { name: 'Message' });
    await poll(() => message.textContent()).toMatch(/^Synced: /);
    await shot('message');
    const m = await box(message);
    expect(inside(m, { x: 0, y: 0, width: 640, height: 400 })).toBe(true);
    // Not cut: what is drawn is as tall and wide as the text needs.
    expect(await message.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await context.close();
  }, 240_000);
});
