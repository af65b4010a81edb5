// Importing a file in the app, end to end (`npm start`'s launcher with the embedded demo service, the real mirror
// host, Debian's Chromium): a file of a type the app does not take refused in words; Import's key (I) opens the file
// chooser, a KML previewed and cancelled (its kept copy removed); then test/fixtures/import-preview.geojson dropped
// on the map (a drop event with the file in its DataTransfer, as a drag from the desktop makes): the preview lists
// each feature's problem (a bow tie, a field over the account's limit, a LineString), the valid ones are imported into
// a new farm, listed and shown, synced, and the service's HTTP API then holds exactly those.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { decodePng, demoApi, openApp, selectBySearch, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-import-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const FIXTURE = join(ROOT, 'test/fixtures/import-preview.geojson');
const dialog = () => page.getByRole('dialog', { name: /^Import / });
/** The previews' files the host keeps (FURROW_HOME/imports). */
const kept = () => (existsSync(join(ctx.dir, 'home', 'imports')) ? readdirSync(join(ctx.dir, 'home', 'imports')) : []);

/** Drags `text` as a file named `name` over the map and drops it there, as the browser does for a file from the desktop. */
async function dropFile(name: string, text: string, type = 'application/geo+json'): Promise<void> {
  const map = page.locator('.map');
  const transfer = await page.evaluateHandle(([n, t, ty]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], n, { type: ty }));
    return dt;
  }, [name, text, type] as const);
  await map.dispatchEvent('dragenter', { dataTransfer: transfer });
  await map.dispatchEvent('dragover', { dataTransfer: transfer });
  // The drop zone says where to drop while a file is over the window.
  expect(await page.getByRole('status', { name: 'Drop to import' }).textContent()).toMatch(/^Drop the file to preview its import/);
  await map.dispatchEvent('drop', { dataTransfer: transfer });
  await poll(() => page.getByRole('status', { name: 'Drop to import' }).count()).toBe(0);
}

/** The preview table's rows as [#, name, type, hectares, problems]. */
const rows = () => dialog().getByRole('table').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.querySelector('ul')?.textContent ?? td.textContent ?? '')));

/**
 * How many marker boxes the map shows left of `right` and above `bottom` (the legend's swatches are not markers): a box's top edge is a run of the preview's magenta (#c2185b)
 * longer than any dash of its outlines (8 px), with white mostly beneath it.
 */
async function markerBoxes(png: Buffer, right: number, bottom: number): Promise<number> {
  const { width, height, data } = decodePng(png);
  const at = (x: number, y: number) => data.slice((y * width + x) * 4, (y * width + x) * 4 + 3);
  // The 1 px edge is anti-aliased to a lighter magenta: red well above green, as no basemap grey or white is.
  const magenta = (x: number, y: number) => { const [r, g] = at(x, y); return r! > 150 && r! - g! > 60; };
  const white = (x: number, y: number) => at(x, y).every((v) => v! > 245);
  const tops: [number, number][] = [];
  for (let y = 50; y < Math.min(bottom, height - 3); y++) {
    let run = 0;
    for (let x = 0; x < Math.min(right, width); x++) {
      run = magenta(x, y) ? run + 1 : 0;
      if (run !== 16 || [...Array(16).keys()].filter((i) => white(x - i, y + 1) || white(x - i, y + 2)).length < 10) continue;
      // An anti-aliased edge spans two rows: one box.
      if (!tops.some(([bx, by]) => Math.abs(bx - x) < 24 && y - by < 6)) tops.push([x, y]);
    }
  }
  return tops.length;
}

describe('importing a file in the app', () => {
  it('refuses a file of another type in words, and previews a KML chosen with I, cancelled without a trace', async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await page.getByLabel('File to import').setInputFiles({ name: 'fields.csv', mimeType: 'text/csv', buffer: Buffer.from('name,wkt\n') });
    await poll(() => dialog().getByRole('alert').textContent())
      .toBe('fields.csv is not a file Furrow imports: drop a GeoJSON (.geojson, .json), a KML (.kml, .kmz) or a zipped Shapefile (.zip).');
    await dialog().getByRole('button', { name: 'Close', exact: true }).click();
    expect(await dialog().count()).toBe(0);

    // The toolbar's button announces its key; I opens the same chooser.
    expect(await page.getByRole('button', { name: 'Import', exact: true }).getAttribute('aria-keyshortcuts')).toBe('I');
    // Listen for the chooser a round trip before the key: Playwright turns on Chromium's chooser interception
    // asynchronously, and a key press sent right behind it can reach the page first under load (the native, headless
    // chooser then opens and closes unseen).
    const chooserShown = page.waitForEvent('filechooser');
    await page.locator('.top h1').click();
    await page.keyboard.press('i');
    const chooser = await chooserShown;
    await chooser.setFiles(join(ROOT, 'examples/fields.kml'));
    await poll(() => dialog().locator('#import-summary').textContent()).toMatch(/^5 features: all can be imported \(5 parcels, [\d.,]+ ha\)\./);
    expect(kept()).toHaveLength(1);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog().count()).toBe(0);
    await poll(async () => kept()).toEqual([]);
  }, 90_000);

  it("drops a file on the map, lists every feature's problem, imports the valid ones into a new farm, and syncs exactly those", async () => {
    const text = readFileSync(FIXTURE, 'utf8');
    await dropFile('import-preview.geojson', text);
    await poll(() => dialog().locator('#import-summary').textContent()).toMatch(/^8 features: 5 can be imported \(6 parcels, [\d.,]+ ha\), 3 cannot\./);
    const table = await rows();
    expect(table.map((r) => r.slice(0, 3))).toEqual([
      ['1', 'Haza del Pozo', 'Polygon'], ['2', 'Haza Larga', 'Polygon'], ['3', 'Bow tie', 'Polygon'], ['4', 'Dehesa grande', 'Polygon'],
      ['5', 'Camino viejo', 'LineString'], ['6', 'Parcela de ensayo', 'Point'], ['7', 'Huertas', 'MultiPolygon · 2 parcels'], ['8', '(no name)', 'Polygon'],
    ]);
    const problemOf = (n: number) => table[n - 1]![4];
    expect(problemOf(3)).toMatch(/^ring 0 \(outer\) crosses or touches itself: segment \d meets segment \d at /);
    expect(problemOf(4)).toMatch(/^area 2\d\d(\.\d+)? ha exceeds the account's limit of 100 ha$/);
    expect(problemOf(5)).toBe('a LineString cannot be a parcel; only Polygon, MultiPolygon and Point (with hectares) can');
    for (const n of [1, 2, 6, 7, 8]) expect(problemOf(n)).toMatch(/Can be imported$/);
    expect(table[5]![3]).toBe('1.50');
    expect(table[3]![3]).toBe('—');
    // Usable at 1280×800: the dialog fits the window, its table scrolls inside it, the header is still one line.
    const box = (await dialog().boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    expect((await page.locator('header.top').boundingBox())!.height).toBeLessThan(50);
    await page.waitForTimeout(400); // the map's fit to the file
    await page.screenshot({ path: join(SHOTS, 'app-import.png') });
    copyFileSync(join(SHOTS, 'app-import.png'), join(ROOT, 'docs/img/app-import.png'));
    // The three markers on the map, each in a box of its own (white, edged in the preview's magenta): a haloed "#3"
    // over the bow tie's crossing lines read as "##3".
    const legend = (await page.getByRole('complementary', { name: 'Legend' }).boundingBox())!;
    expect(await markerBoxes(readFileSync(join(SHOTS, 'app-import.png')), (await dialog().boundingBox())!.x, legend.y)).toBe(3);
    // A parcel selected while the preview is open (after the screenshot the docs show): the side panel leaves it once
    // the import lands (it went on showing it, the imported farm hidden under it).
    await selectBySearch(page, 'Olivar A');
    // Only the problems, when asked; the invalid ones each have a way to the map.
    await dialog().getByLabel('Only features with problems').check();
    expect((await rows()).map((r) => r[0])).toEqual(['3', '4', '5']);
    await dialog().getByRole('button', { name: 'Show feature 4 on the map' }).click();
    await dialog().getByLabel('Only features with problems').uncheck();

    // A new farm, named after the file unless told; a name the account has is refused before anything is sent.
    const farmName = dialog().getByLabel('New farm name');
    expect(await farmName.inputValue()).toBe('import-preview');
    await farmName.fill('Finca El Olivar');
    await poll(() => dialog().getByRole('alert').textContent()).toBe('A farm named Finca El Olivar exists: choose it in the list, or another name.');
    await farmName.fill('Cortijo importado');
    expect(await dialog().getByRole('alert').textContent()).toBe('');
    await dialog().getByRole('button', { name: 'Import 5 valid features' }).click();
    await poll(() => dialog().count()).toBe(0);
    await poll(() => page.locator('.statusbar .message').textContent())
      .toBe('Imported 6 parcels from import-preview.geojson into Cortijo importado; 3 features with problems left out. They go to the service at the next sync; Undo takes them back.');
    expect(await page.locator('[data-field=name]').count()).toBe(0);
    // Listed with its parcels, chosen, and on the map (which fits to it).
    await poll(() => page.getByRole('button', { name: /Cortijo importado/ }).textContent()).toMatch(/6 parcels/);
    await poll(() => shownOn(page)).toBe(6);
    expect(kept()).toEqual([]);

    // Synced: the service holds the new farm with exactly the valid features, and none of the others anywhere.
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const api = demoApi(ctx);
    const farm = async () => (await api.get<{ id: number; name: string }[]>('/api/farms/')).find((f) => f.name === 'Cortijo importado');
    await poll(async () => (await farm()) !== undefined).toBe(true);
    const names = async () => (await api.get<{ features: { properties: { name: string } }[] }>(`/api/farms/${(await farm())!.id}/parcels/`)).features.map((f) => f.properties.name).sort();
    await poll(names).toEqual(['Cortijo importado 8', 'Haza Larga', 'Haza del Pozo', 'Huertas (part 1 of 2)', 'Huertas (part 2 of 2)', 'Parcela de ensayo'].sort());
    for (const bad of ['Bow tie', 'Dehesa grande', 'Camino viejo']) expect(await api.parcel(bad)).toBeUndefined();
    const point = (await api.parcel('Parcela de ensayo'))!;
    expect(point.properties.hectares).toBeCloseTo(1.5, 6);
    expect(await problems()).toEqual([]);
  }, 120_000);
});
