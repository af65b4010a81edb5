// Files opened as map layers in the app (issue 30), end to end (`npm start`'s launcher with the embedded demo
// service, the real mirror host, Debian's Chromium): files written now by GDAL over the map's view — a raster MBTiles
// (gdal_translate + gdaladdo), a PMTiles archive of raster tiles (the tests' writer, from GDAL's tiles), a
// Cloud-Optimized GeoTIFF in EPSG:25830 (gdal_translate -of COG), a vector MBTiles (ogr2ogr: MVT), the same vector
// tiles as PMTiles, and a GeoJSON overlay — each chosen in the layers panel's file input, sent to the host in chunks, and seen under the parcels (its
// colour fills the map, a parcel still tinted over it); a file the map cannot show refused in the host's words; a
// polygon drawn with its first click a few pixels off an overlay's vertex starting exactly on it (the service holds
// the vertex); and a layer removed taking the host's copy with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { decodePng, demoApi, lonLatAt, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { cog, overlayCollection, overlayGeojson, pmtilesFrom, rasterMbtiles, vectorMbtiles, type Area } from '../helpers/layer-fixtures.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;
/** A blank page of its own that counts a screenshot's pixels (the app's page policy refuses data: images). */

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-layer-files-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

type Rgb = [number, number, number];
/** Each raster file's one colour, the vector tiles' water (file-layer-styles.ts TILE_COLOURS) and the overlay's lines (OVERLAY_COLOUR). */
const COLOURS: Record<'mbtiles' | 'pmtiles' | 'geotiff' | 'water' | 'overlay', Rgb> = {
  mbtiles: [255, 128, 0], pmtiles: [0, 150, 136], geotiff: [142, 36, 170], water: [168, 204, 232], overlay: [194, 65, 12],
};
const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
/**
 * A poll of the map's pixels (a screenshot decoded in Node) every 500 ms, not vitest's 50: back to back, the
 * screenshots kept Chromium and this process busy while the map they waited for was still drawing.
 */
const pixelPoll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout, interval: 500 });
const panel = () => page.getByRole('dialog', { name: 'Layers' });
const listed = () => panel().getByRole('list', { name: 'Map layers, top first' }).locator('.layer-name').allTextContents();
const keptFiles = () => readdirSync(join(ctx.dir, 'home', 'layers')).filter((f) => /^[0-9a-f]{32}\.(mbtiles|pmtiles|tif|geojson)$/.test(f));

/** The map's pixels (a margin left out for its controls), decoded in Node (test/helpers/png.ts). */
async function mapPixels(box?: { x: number; y: number; width: number; height: number }): Promise<{ x0: number; y0: number; width: number; height: number; data: Uint8Array }> {
  const map = (await page.locator('.map').boundingBox())!;
  const clip = box ?? { x: map.x + 60, y: map.y + 40, width: map.width - 120, height: map.height - 80 };
  const png = await page.screenshot({ clip });
  const img = decodePng(png);
  return { x0: clip.x, y0: clip.y, ...img };
}

const near = (d: Uint8Array, i: number, c: Rgb, tol = 8) => Math.abs(d[i]! - c[0]) <= tol && Math.abs(d[i + 1]! - c[1]) <= tol && Math.abs(d[i + 2]! - c[2]) <= tol;

/** The share of the map's pixels of colour `c`. */
async function share(c: Rgb): Promise<number> {
  const { data } = await mapPixels();
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (near(data, i, c)) n++;
  return n / (data.length / 4);
}

/** Pixels of colour `c` on the map (a line or a small shape). */
async function count(c: Rgb, tol = 10): Promise<number> {
  const { data } = await mapPixels();
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (near(data, i, c, tol)) n++;
  return n;
}

/** Where a [lon, lat] is on the page, from the map's own cursor read-out at two points (linear at field scale). */
async function projection(): Promise<{ toPixel(lon: number, lat: number): [number, number]; area: Area; inside(p: [number, number], margin: number): boolean }> {
  const map = (await page.locator('.map').boundingBox())!;
  const [ax, ay, bx, by] = [map.x + 20, map.y + 20, map.x + map.width - 20, map.y + map.height - 20];
  const a = await lonLatAt(page, ax, ay);
  const b = await lonLatAt(page, bx, by);
  const toPixel = (lon: number, lat: number): [number, number] => [ax + ((lon - a[0]) / (b[0] - a[0])) * (bx - ax), ay + ((lat - a[1]) / (b[1] - a[1])) * (by - ay)];
  const inside = ([x, y]: [number, number], m: number) => x > map.x + m && x < map.x + map.width - m && y > map.y + m && y < map.y + map.height - m;
  return { toPixel, area: { west: a[0], north: a[1], east: b[0], south: b[1] }, inside };
}

/** Opens `file` with the panel's "Open a file as a layer…" (browser mode: its file input), and waits for it listed on top. */
async function open(file: string, name: string): Promise<void> {
  await panel().getByLabel('File to open as a layer').setInputFiles(file);
  await poll(() => listed().then((l) => l[0]?.trim())).toBe(name);
}

/** Dark pixels (the labels' text, file-layer-styles.ts TILE_COLOURS.label) in the box above a point `at`, where its name goes. */
async function darkAround(at: [number, number]): Promise<number> {
  const { data } = await mapPixels({ x: Math.round(at[0] - 40), y: Math.round(at[1] - 30), width: 80, height: 40 });
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (near(data, i, [43, 43, 43], 40)) n++;
  return n;
}

/**
 * The labels' font (Noto Sans, renderer/fonts/noto-sans.css) loaded from the page's own origin and nothing else
 * fetched from elsewhere, and the vector layer's label at `at` (the well's name) drawn: dark pixels there with the
 * layer shown, far fewer with it hidden.
 */
async function labelsInBundledFont(at: [number, number]): Promise<void> {
  const fonts = await page.evaluate(() => ({
    origin: location.origin,
    check: document.fonts.check('12px "Noto Sans"') && document.fonts.check('bold 12px "Noto Sans"'),
    loaded: [...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Noto Sans' && f.status === 'loaded').map((f) => f.weight),
    files: performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /\.woff2?(\?|$)/.test(n)),
    elsewhere: performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !n.startsWith(location.origin) && !n.startsWith('ws')),
  }));
  expect(fonts.check).toBe(true);
  // Regular and bold, loaded before the map drew its first label (renderer/main.tsx).
  expect(new Set(fonts.loaded)).toEqual(new Set(['400', '700']));
  expect(fonts.files.length).toBeGreaterThanOrEqual(2);
  for (const f of fonts.files) expect(f.startsWith(`${fonts.origin}/`) && /noto-sans-latin(-ext)?-[47]00-normal/.test(f), f).toBe(true);
  expect(fonts.elsewhere).toEqual([]);
  // The layer hidden (as the first test left it), then shown, then hidden again.
  const hidden = await darkAround(at);
  await panel().getByRole('checkbox', { name: 'Caminos' }).check();
  await pixelPoll(() => darkAround(at), 30_000).toBeGreaterThan(hidden + 30);
  const shown = await darkAround(at);
  await panel().getByRole('checkbox', { name: 'Caminos' }).uncheck();
  await pixelPoll(() => darkAround(at)).toBeLessThan(hidden + (shown - hidden) / 3);
}

describe('files opened as layers', () => {
  let px: Awaited<ReturnType<typeof projection>>;
  let parcelAt: [number, number];
  let fixtures: string;

  it("opens an MBTiles, a PMTiles, a GeoTIFF, vector MBTiles and PMTiles and a GeoJSON overlay, each seen under the parcels", async () => {
    await waitOnline(page);
    await poll(() => shownOn(page)).toBeGreaterThan(0);
    px = await projection();
    // A parcel wholly in view: its middle, where the parcels' tint lies over whatever layer is under it.
    const parcels = await demoApi(ctx).parcels();
    const inView = (p: [number, number]) => px.inside(p, 100);
    const middle = parcels.filter((p) => p.geometry.type === 'Polygon').map((p) => {
      const ring = p.geometry.coordinates[0]!.slice(0, -1);
      return px.toPixel(ring.reduce((s, q) => s + q[0]!, 0) / ring.length, ring.reduce((s, q) => s + q[1]!, 0) / ring.length);
    }).find(inView);
    expect(middle).toBeDefined();
    parcelAt = middle!;

    // The files, made now over the map's view (GDAL picks the tiles' zooms from the raster's resolution).
    fixtures = join(ctx.dir, 'fixtures');
    mkdirSync(fixtures);
    const mbtiles = rasterMbtiles(fixtures, 'Ortofoto PNOA', COLOURS.mbtiles, px.area, ['2', '4', '8', '16']);
    const pmSource = rasterMbtiles(fixtures, 'pm-src', COLOURS.pmtiles, px.area, ['2', '4', '8', '16']);
    const pmtiles = pmtilesFrom(pmSource, join(fixtures, 'Relieve.pmtiles'), false, px.area);
    const tif = cog(fixtures, 'Vuelo 2024', 25830, COLOURS.geotiff, 1024, 'LZW', px.area);
    const roads = vectorMbtiles(fixtures, 'Caminos', px.area);
    const roadsPm = pmtilesFrom(roads, join(fixtures, 'Caminos.pmtiles'), true, px.area);
    const drains = overlayGeojson(fixtures, 'Acequias', px.area);

    await page.getByRole('button', { name: 'Layers' }).click();
    await poll(() => panel().count()).toBe(1);
    const underParcels = async (c: Rgb, what: string) => {
      await pixelPoll(() => share(c), 60_000).toBeGreaterThan(0.3);
      // The parcels still drawn over it: at a parcel's middle, the layer's colour tinted.
      const { x0, y0, width, data } = await mapPixels();
      const i = (Math.round(parcelAt[1] - y0) * width + Math.round(parcelAt[0] - x0)) * 4;
      expect(near(data, i, c), `${what}: a parcel over it`).toBe(false);
      await page.screenshot({ path: join(SHOTS, `app-layer-files-${what}.png`) });
    };
    await open(mbtiles, 'Ortofoto PNOA');
    await underParcels(COLOURS.mbtiles, 'mbtiles');
    await open(pmtiles, 'Orthophoto (PMTiles)');
    await underParcels(COLOURS.pmtiles, 'pmtiles');
    await open(tif, 'Vuelo 2024');
    await underParcels(COLOURS.geotiff, 'geotiff');
    // Vector tiles in the default style (its pond as water), over the orthophoto; the overlay's lines in its colour.
    await open(roads, 'Caminos');
    await pixelPoll(() => count(COLOURS.water, 6), 60_000).toBeGreaterThan(40);
    // The same tiles as a PMTiles archive (read by the page by range), the MBTiles layer hidden: its pond still drawn.
    await open(roadsPm, 'Roads (PMTiles)');
    await panel().getByRole('checkbox', { name: 'Caminos' }).uncheck();
    await pixelPoll(() => count(COLOURS.water, 6), 60_000).toBeGreaterThan(40);
    await panel().getByRole('checkbox', { name: 'Roads (PMTiles)' }).uncheck();
    await pixelPoll(() => count(COLOURS.water, 6)).toBe(0);
    await open(drains, 'Acequias');
    await pixelPoll(() => count(COLOURS.overlay, 24), 60_000).toBeGreaterThan(200);
    expect(await page.locator('.statusbar .message').textContent()).toBe('Added the layer Acequias, on top of the others. 1 feature(s) without a shape were left out.');
    await page.screenshot({ path: join(SHOTS, 'app-layer-files.png') });
    expect(keptFiles()).toHaveLength(6);
    // Each legend names the file's kind and what it holds, as the host found it (top first; the backdrop last).
    const legends = (await panel().locator('.layer-legend').allTextContents()).slice(0, 6);
    [/^GeoJSON, 4 features/, /^PMTiles, vector, z\d+–\d+ · © Test fixtures$/, /^MBTiles, vector, z\d+–\d+/, /^GeoTIFF, EPSG:25830, 1 overview/, /^PMTiles, raster, z\d+–\d+ · © Test fixtures$/, /^MBTiles, raster, z\d+–\d+/]
      .forEach((want, i) => expect(legends[i]).toMatch(want));
    // Nothing failed, nothing fetched from elsewhere (the page policy would have said).
    expect(await panel().locator('.layer.failing').count()).toBe(0);
    expect(await problems()).toEqual([]);
    // Six files made by GDAL, sent and drawn one by one: on a 2-core machine shared with other runs (load 18) each
    // took 80–90 s and the whole passed 300 s.
  }, 600_000);

  it("draws a vector layer's labels in the font bundled with the page, loaded from the page's own origin", async () => {
    // The well's name ("Pozo", above its point) darkens the map there only while the vector MBTiles layer shows.
    await labelsInBundledFont(px.toPixel(...(overlayCollection(px.area).features[3]!.geometry!.coordinates as [number, number])));
    expect(await problems()).toEqual([]);
  }, 120_000);

  it('refuses a file the map cannot show in the words of the host, keeping nothing', async () => {
    const text = join(fixtures, 'notas.txt');
    writeFileSync(text, 'not a map');
    await panel().getByLabel('File to open as a layer').setInputFiles(text);
    await poll(() => panel().getByRole('alert').textContent()).toMatch(/^notas\.txt is not a file the map shows: open MBTiles, PMTiles, GeoTIFF, GeoJSON/);
    expect(keptFiles()).toHaveLength(6);
    expect(readdirSync(join(ctx.dir, 'home', 'layers')).filter((f) => f.endsWith('.part'))).toEqual([]);
  }, 60_000);

  it("snaps a polygon's vertex to the overlay's, and removes a layer with the host's copy", async () => {
    // The overlay's vertex farthest from every parcel vertex (so that only the overlay is within snapping reach).
    const parcels = await demoApi(ctx).parcels();
    const parcelPixels = parcels.flatMap((p) => (p.geometry.type === 'Polygon' ? p.geometry.coordinates[0]! : [])).map((q) => px.toPixel(q[0]!, q[1]!));
    const vertices = overlayCollection(px.area).features.flatMap((f) => {
      const g = f.geometry as { type: string; coordinates: unknown } | null;
      if (!g) return [];
      return g.type === 'Point' ? [g.coordinates as number[]] : g.type === 'LineString' ? (g.coordinates as number[][]) : (g.coordinates as number[][][])[0]!;
    });
    const far = (v: number[]) => Math.min(...parcelPixels.map((p) => Math.hypot(p[0] - px.toPixel(v[0]!, v[1]!)[0], p[1] - px.toPixel(v[0]!, v[1]!)[1])));
    // Room right and below for the triangle's other clicks, clear of the legend (bottom left) and the controls.
    const target = vertices.filter((v) => { const [x, y] = px.toPixel(v[0]!, v[1]!); return px.inside([x, y], 110) && x > 300; }).sort((a, b) => far(b) - far(a))[0]!;
    expect(far(target)).toBeGreaterThan(30);
    await page.keyboard.press('Escape');
    await poll(() => panel().count()).toBe(0);
    const [x, y] = px.toPixel(target[0]!, target[1]!);
    const shown = await shownOn(page);
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    for (const [cx, cy] of [[x + 4, y - 3], [x + 70, y + 10], [x + 30, y + 60]] as const) await page.mouse.click(cx, cy);
    await page.keyboard.press('Enter');
    await page.getByLabel('Name').fill('Snapped to the acequia');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await poll(() => shownOn(page)).toBe(shown + 1);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Synced: \d+ sent/);
    const saved = await demoApi(ctx).parcel('Snapped to the acequia');
    expect(saved).toBeDefined();
    const ring = saved!.geometry.coordinates[0]!;
    // Exactly the overlay's vertex, where the click was 5 px (tens of metres) away.
    expect(Math.min(...ring.map((q) => Math.hypot(q[0]! - target[0]!, q[1]! - target[1]!)))).toBeLessThan(1e-7);

    // The overlay removed: its copy goes from the host's folder once the list is saved.
    await page.getByRole('button', { name: 'Layers' }).click();
    await panel().getByRole('button', { name: 'Remove Acequias' }).click();
    await poll(async () => keptFiles().length).toBe(5);
    expect(await listed()).not.toContain(' Acequias');
    expect(await problems()).toEqual([]);
  }, 180_000);
});
