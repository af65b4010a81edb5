// A file in a national grid, end to end (`npm start`'s launcher with the embedded demo service, the real mirror host,
// Debian's Chromium): a zipped Shapefile ogr2ogr wrote in EPSG:25830 (ETRS89 / UTM zone 30N, Spain's official grid,
// with GDAL's .prj that names no code) is previewed with its CRS named, imported, synced, and the service holds its
// parcels where ogr2ogr puts them back in WGS84, within 1 cm; exported from the farm in EPSG:25830, the file has them
// where ogr2ogr first wrote them. A British National Grid file is refused for want of its NTv2 grid, which the dialog
// then takes from the user, and previews.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { ntv2Grid } from '../../core/geo/ntv2.test-helpers.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-import-crs-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const dialog = () => page.getByRole('dialog', { name: /^Import / });
const fixture = (name: string) => readFileSync(join(ROOT, 'db/import/fixtures/crs', name));

type Doc = { features: { properties: { name: string }; geometry: { coordinates: unknown } }[] };
const positions = (c: unknown): number[][] => (typeof (c as unknown[])[0] === 'number' ? [c as number[]] : (c as unknown[]).flatMap(positions));
const byName = (doc: Doc) => new Map(doc.features.map((f) => [f.properties.name, positions(f.geometry.coordinates)]));
/** Metres between two WGS84 positions close together. */
const metres = (a: number[], b: number[]) => {
  const rad = Math.PI / 180;
  return Math.hypot((a[0]! - b[0]!) * rad * 6378137 * Math.cos(a[1]! * rad), (a[1]! - b[1]!) * rad * 6378137);
};
/** The largest distance from each of `mine`'s positions to the nearest of `theirs` for the same name (rings may run either way). */
function worst(mine: Map<string, number[][]>, theirs: Map<string, number[][]>, distance: (a: number[], b: number[]) => number): number {
  let out = 0;
  for (const [name, ps] of mine) for (const p of ps) out = Math.max(out, Math.min(...theirs.get(name)!.map((q) => distance(p, q))));
  return out;
}

describe('importing a file in a national grid in the app', () => {
  it('previews an EPSG:25830 Shapefile naming its CRS, imports it, and the service holds the parcels where ogr2ogr puts them', async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await page.getByLabel('File to import').setInputFiles({ name: 'parcelas-etrs89.zip', mimeType: 'application/zip', buffer: fixture('25830.shp.zip') });
    await poll(() => dialog().locator('#import-crs').textContent()).toBe('Coordinate system: EPSG:25830 · ETRS89 / UTM zone 30N, reprojected to WGS84');
    expect(await dialog().locator('#import-summary').textContent()).toMatch(/^4 features: all can be imported \(4 parcels, [\d.,]+ ha\)\./);
    await page.waitForTimeout(400); // the map's fit to the file
    await page.screenshot({ path: join(SHOTS, 'app-import-crs.png') });
    copyFileSync(join(SHOTS, 'app-import-crs.png'), join(ROOT, 'docs/img/app-import-crs.png'));

    await dialog().getByLabel('New farm name').fill('Parcelas ETRS89');
    await dialog().getByRole('button', { name: 'Import 4 valid features' }).click();
    await poll(() => dialog().count()).toBe(0);
    await poll(() => page.locator('.statusbar .message').textContent()).toMatch(/^Imported 4 parcels from parcelas-etrs89\.zip into Parcelas ETRS89\./);

    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const api = demoApi(ctx);
    const farm = async () => (await api.get<{ id: number; name: string }[]>('/api/farms/')).find((f) => f.name === 'Parcelas ETRS89');
    await poll(async () => (await farm()) !== undefined).toBe(true);
    const parcels = async () => (await api.get<Doc>(`/api/farms/${(await farm())!.id}/parcels/`)).features;
    await poll(async () => (await parcels()).length).toBe(4);
    const expected = byName(JSON.parse(fixture('25830.wgs84.geojson').toString('utf8')) as Doc);
    expect(worst(byName({ features: await parcels() }), expected, metres)).toBeLessThan(0.01);
  }, 120_000);

  it("exports the farm in EPSG:25830: the file has the parcels where ogr2ogr first wrote them", async () => {
    const group = page.getByRole('group', { name: 'Export the farm Parcelas ETRS89' });
    await poll(() => group.count()).toBe(1);
    await group.getByLabel('Coordinate system to export the farm Parcelas ETRS89 in').selectOption('25830');
    const download = page.waitForEvent('download');
    await group.getByRole('button', { name: 'GeoJSON' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('Parcelas ETRS89 EPSG-25830.geojson');
    const doc = JSON.parse(readFileSync((await file.path())!, 'utf8')) as Doc & { crs: unknown };
    expect(doc.crs).toEqual({ type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::25830' } });
    const written = byName(JSON.parse(fixture('25830.geojson').toString('utf8')) as Doc);
    expect(worst(byName(doc), written, (a, b) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!))).toBeLessThan(0.01);
    await poll(() => page.locator('.statusbar .message').textContent()).toBe('Exported 4 parcels in EPSG:25830 to Parcelas ETRS89 EPSG-25830.geojson.');
  }, 60_000);

  it('refuses a British National Grid file for want of its NTv2 grid, takes the grid from the user, and previews it', async () => {
    const grid = 'OSTN15_NTv2_OSGBtoETRS.gsb';
    await page.getByLabel('File to import').setInputFiles({ name: 'lincolnshire.zip', mimeType: 'application/zip', buffer: fixture('27700.shp.zip') });
    await poll(() => dialog().getByRole('alert').textContent()).toMatch(new RegExp(`^lincolnshire\\.zip: EPSG:27700 \\(OSGB36 / British National Grid\\) needs the NTv2 grid file ${grid}`));
    await page.screenshot({ path: join(SHOTS, 'app-import-crs-grid-missing.png') });
    // A grid file made for the test (OSTN15 itself is Ordnance Survey's): its shifts, over Lincolnshire.
    const synthetic = Buffer.from(ntv2Grid({ south: 52.5, north: 53.5, west: -1, east: 0.5, step: 0.1, shift: () => [1.8, -4.9] }));
    await dialog().getByLabel(`Grid file ${grid}`).setInputFiles({ name: grid, mimeType: 'application/octet-stream', buffer: synthetic });
    await poll(() => dialog().locator('#import-crs').textContent())
      .toBe(`Coordinate system: EPSG:27700 · OSGB36 / British National Grid, reprojected to WGS84 (datum shifted with the NTv2 grid ${grid})`);
    await page.screenshot({ path: join(SHOTS, 'app-import-crs-grid.png') });
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect(await problems()).toEqual([]);
  }, 60_000);
});
