// Measuring and going to a coordinate, end to end (`npm start`'s launcher with the embedded demo service, Debian's
// Chromium) — issue 31's "Measure" and "go to coordinate". A demo parcel's outline measured by clicking near its
// vertices (snapped onto them) gives the parcel's hectares exactly, and an edge its geodesic length; nothing is saved.
// A DMS position and a UTM one typed in Go to coordinate centre the map there with a marker, and the place is added
// as a vertex of a polygon being drawn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import proj4 from 'proj4';
import geodesic from 'geographiclib-geodesic';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, mapCentre, openApp, selectBySearch, shownOn, startDemoApp, waitOnline, type DemoApp, type ServiceParcel } from './app-harness.ts';
import { formatDms } from '../../renderer/features/coordinates/dms.ts';
import { latitudeBand, utmProj4 } from '../../core/geo/utm.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-measure-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
  // The page may write the clipboard, not read it (core/page-policy.ts): what it writes is recorded as it goes.
  await page.context().grantPermissions(['clipboard-write'], { origin: new URL(ctx.app.url).origin });
  await page.evaluate(() => {
    const w = window as unknown as { __copied: string[] };
    w.__copied = [];
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = async (text: string) => { await write(text); w.__copied.push(text); };
  });
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const away = () => page.locator('.top h1').click();
const keep = (name: string) => copyFileSync(join(SHOTS, name), join(ROOT, 'docs/img', name));

/** Where a [lon, lat] is on the page, from the map's cursor read-out at two points (linear at field scale). */
async function projection(): Promise<(p: number[]) => [number, number]> {
  await page.waitForTimeout(600); // a fit's animation
  const { cx, cy } = await mapCentre(page);
  const [lon1, lat1] = await lonLatAt(page, cx - 250, cy - 180);
  const [lon2, lat2] = await lonLatAt(page, cx + 250, cy + 180);
  return ([lon, lat]) => [cx - 250 + ((lon! - lon1) / (lon2 - lon1)) * 500, cy - 180 + ((lat! - lat1) / (lat2 - lat1)) * 360];
}

describe('measuring on the map', () => {
  let parcel: ServiceParcel;
  let count: number;

  it("measures a parcel's outline, snapped to its vertices: exactly its hectares, and never a new parcel", async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    const api = demoApi(ctx);
    const all = await api.parcels();
    count = all.length;
    // A drawn field (a hexagon of the demo), not a hectare point's square.
    parcel = all.find((p) => p.geometry.coordinates.length === 1 && p.geometry.coordinates[0]!.length === 7)!;
    expect(parcel, 'a hexagonal demo parcel').toBeDefined();
    await selectBySearch(page, parcel.properties.name);
    await away();
    await page.keyboard.press('z'); // zoom to it: its vertices far apart
    await page.waitForTimeout(600);
    // One step out: the whole field clear of the Measure panel at the map's top right.
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.waitForTimeout(600);
    const { cx, cy } = await mapCentre(page);
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx - 100, cy + 60, { steps: 8 });
    await page.mouse.up();
    const toPixel = await projection();

    await away();
    await page.keyboard.press('e');
    await poll(() => page.getByRole('button', { name: 'Measure' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByLabel('Area').check();
    const ring = parcel.geometry.coordinates[0]!.slice(0, -1);
    // A few pixels off each vertex: the snap puts the vertex on the parcel's.
    for (const v of ring) {
      const [x, y] = toPixel(v);
      await page.mouse.click(x + 3, y - 2);
    }
    await page.keyboard.press('Enter');
    const area = page.locator('[data-field=measure-area]');
    // The stored [lon, lat] of every vertex snapped to (read from the host): the very hectares the service computed.
    await poll(async () => Number(await area.getAttribute('data-m2')) / 10_000, 10_000).toBe(parcel.properties.hectares);
    expect(await area.textContent()).toMatch(/^\d+\.\d{4} ha \([\d,]+ m²\)$/);
    const perimeter = Number(await page.locator('[data-field=measure-perimeter]').getAttribute('data-metres'));
    const poly = geodesic.Geodesic.WGS84.Polygon(false);
    for (const [lon, lat] of ring) poly.AddPoint(lat!, lon!);
    expect(perimeter).toBeCloseTo(poly.Compute(false, true).perimeter!, 6);
    expect(await page.locator('.measure-segments li').count()).toBe(6);
    await page.mouse.move(10, 10);
    await page.screenshot({ path: join(SHOTS, 'app-measure-area.png') });
    keep('app-measure-area.png');

    // Copied as text, as shown.
    await page.getByRole('button', { name: 'Copy result' }).click();
    await poll(() => page.evaluate(() => (window as unknown as { __copied: string[] }).__copied.at(-1) ?? '')).toMatch(/^Area \d+\.\d{4} ha \([\d,]+ m²\), perimeter [\d.,]+ (m|km), geodesic on WGS84$/);
    // US units: acres.
    await page.getByLabel('Units').selectOption('us');
    await poll(() => area.textContent()).toMatch(/^\d+\.\d{4} ac \([\d,]+ ft²\)$/);
    expect(Number(/^([\d.]+) ac/.exec((await area.textContent())!)![1])).toBeCloseTo(parcel.properties.hectares * 10_000 / 4046.8564224, 3);
    await page.getByLabel('Units').selectOption('metric');
  }, 120_000);

  it("measures a line along two edges: each segment's geodesic length and their sum", async () => {
    await page.getByLabel('Distance').check();
    const toPixel = await projection();
    const ring = parcel.geometry.coordinates[0]!;
    for (const v of ring.slice(0, 3)) {
      const [x, y] = toPixel(v);
      await page.mouse.click(x - 2, y + 3);
    }
    await page.keyboard.press('Enter');
    const inv = (a: number[], b: number[]) => geodesic.Geodesic.WGS84.Inverse(a[1]!, a[0]!, b[1]!, b[0]!).s12!;
    const expected = inv(ring[0]!, ring[1]!) + inv(ring[1]!, ring[2]!);
    const length = page.locator('[data-field=measure-length]');
    await poll(async () => Number(await length.getAttribute('data-metres'))).toBeCloseTo(expected, 6);
    expect(await page.locator('.measure-segments li').count()).toBe(2);
    expect(await length.textContent()).toMatch(/^[\d.,]+ (m|km)$/);
    await page.mouse.move(10, 10);
    await page.screenshot({ path: join(SHOTS, 'app-measure-line.png') });
    keep('app-measure-line.png');

    // Esc ends measuring; nothing was saved.
    await away();
    await page.keyboard.press('Escape');
    await poll(() => page.locator('.measure-panel').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Measure' }).getAttribute('aria-pressed')).toBe('false');
    expect((await demoApi(ctx).parcels()).length).toBe(count);
  }, 120_000);
});

describe('go to coordinate', () => {
  /** The map's centre as its cursor read-out says it (5 decimals). */
  const centre = async () => { const { cx, cy } = await mapCentre(page); return lonLatAt(page, cx, cy); };

  it('centres the map on a place typed in degrees, minutes and seconds, with a marker', async () => {
    const target: [number, number] = [-4.7712, 37.8873]; // by the demo's Finca El Olivar
    await away();
    await page.keyboard.press('g');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('goto-field');
    const dms = formatDms(target); // 37°53'14.3"N 4°46'16.3"W
    await page.keyboard.type(dms);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-field=goto-lonlat]').count(), 10_000).toBe(1);
    const shown = (await page.locator('[data-field=goto-lonlat]').textContent())!.split(',').map(Number);
    expect(Math.abs(shown[0]! - target[0])).toBeLessThan(3e-5);
    expect(Math.abs(shown[1]! - target[1])).toBeLessThan(3e-5);
    await page.waitForTimeout(500); // the map's animation
    const [lon, lat] = await centre();
    // A tenth of a second of arc, as typed: within 3 m.
    expect(Math.abs(lon - target[0])).toBeLessThan(3e-5);
    expect(Math.abs(lat - target[1])).toBeLessThan(3e-5);
    expect(await page.locator('.goto-went').textContent()).toMatch(/read as degrees, minutes, seconds/);
    await page.mouse.move(10, 10);
    await page.screenshot({ path: join(SHOTS, 'app-goto-dms.png') });
    keep('app-goto-dms.png');
  }, 120_000);

  it('reads UTM by zone and band, and adds the place as a vertex of the polygon being drawn', async () => {
    const target: [number, number] = [-4.7655, 37.8841];
    const zone = Math.floor((target[0] + 180) / 6) + 1;
    const [e, n] = proj4('WGS84', utmProj4(zone, true)).forward(target);
    const typed = `${zone}${latitudeBand(target[1])} ${e!.toFixed(2)} ${n!.toFixed(2)}`; // 30S …
    await away();
    await page.keyboard.press('d'); // drawing: the place can be a vertex
    await page.keyboard.press('Control+g');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('goto-field');
    await page.locator('#goto-field').fill(typed);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.goto-went').textContent()).toMatch(new RegExp(`read as UTM zone ${zone}S \\(WGS 84\\)`));
    const [lon, lat] = (await page.locator('[data-field=goto-lonlat]').textContent())!.split(',').map(Number);
    expect(Math.abs(lon! - target[0])).toBeLessThan(1e-6);
    expect(Math.abs(lat! - target[1])).toBeLessThan(1e-6);
    await page.waitForTimeout(500);
    const [clon, clat] = await centre();
    expect(Math.abs(clon - target[0])).toBeLessThan(2e-5);
    expect(Math.abs(clat - target[1])).toBeLessThan(2e-5);
    await page.mouse.move(10, 10);
    await page.screenshot({ path: join(SHOTS, 'app-goto-utm.png') });
    keep('app-goto-utm.png');
    await page.getByRole('button', { name: 'Add as vertex' }).click();
    await poll(() => page.locator('.lonlat .muted').textContent()).toBe('1 vertex');
    // An EPSG code and its metres, placed with the host's definition (crsDefinition); then metres alone, in it.
    const etrs = '+proj=utm +zone=30 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs';
    for (const [i, place] of ([[-4.7701, 37.8855], [-4.7688, 37.8862]] as [number, number][]).entries()) {
      const [x, y] = proj4('WGS84', etrs).forward(place);
      await page.locator('#goto-field').fill(`${i === 0 ? 'EPSG:25830 ' : ''}${x!.toFixed(3)} ${y!.toFixed(3)}`);
      await page.keyboard.press('Enter');
      await poll(() => page.locator('.goto-went p').textContent()).toMatch(i === 0 ? /read as EPSG:25830 ETRS89 \/ UTM zone 30N\.$/ : /read as EPSG:25830 ETRS89 \/ UTM zone 30N, the coordinate system used last\.$/);
      const [plon, plat] = (await page.locator('[data-field=goto-lonlat]').textContent())!.split(',').map(Number);
      expect(Math.abs(plon! - place[0])).toBeLessThan(1e-6);
      expect(Math.abs(plat! - place[1])).toBeLessThan(1e-6);
    }
    // An error says why: a band that does not hold the northing.
    await page.locator('#goto-field').fill(`${zone}C ${e!.toFixed(0)} ${n!.toFixed(0)}`);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.goto-panel [role=alert]').textContent()).toMatch(/outside band C/);
    await page.locator('#goto-field').press('Escape');
    await poll(() => page.locator('.goto-panel').count()).toBe(0);
    expect(await problems()).toEqual([]);
  }, 120_000);
});
