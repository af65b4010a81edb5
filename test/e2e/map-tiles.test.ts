// Every parcel at every zoom (issue 32), end to end: the real mirror host in browser mode on a generated mirror of
// 50,000 parcels (bench/lib/million-mirror.ts) plus one lone parcel 100 km from the others, in Debian's Chromium.
// Zoomed all the way out, the map draws the host's parcel tiles: the lone parcel and the farthest parcels west and
// east are all drawn (screenshot pixels), and a deleted parcel and another account's parcel, lone too, are not; a
// click on the lone parcel selects it, found by the host on its exact geometry; renamed, its colour turns from synced
// to pending at once, without a move of the map.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MILLION_ACCOUNT, millionMirror } from '../../bench/lib/million-mirror.ts';
import { startBrowserApp, type BrowserApp } from '../../bench/lib/browser-app.ts';
import { Mirror } from '../../db/mirror.ts';
import { polygonParcel } from '../helpers/service.ts';
import { CHROMIUM_ARGS, SHOTS } from './embed-harness.ts';
import { decodePng, openApp } from './app-harness.ts';

const PARCELS = 50_000;
/** The lone parcel: in Galicia, far west of the generated farms (lon -7 to -1.5). */
const LONE: [number, number] = [-8.2, 42.6];
/** A parcel deleted (its delete sent), and a parcel of another account: both north of the generated farms too. */
const DELETED: [number, number] = [-4.0, 43.2];
const THEIRS: [number, number] = [-3.0, 42.8];
const OTHER = 'acc-00000000-0000-4000-8000-00000000b0a3';

let app: BrowserApp;
let browser: Browser;
let dir: string;
let west: { name: string; lon: number; lat: number };
let east: { name: string; lon: number; lat: number };

beforeAll(async () => {
  const mm = millionMirror(PARCELS);
  dir = mkdtempSync(join(tmpdir(), 'furrow-map-tiles-'));
  const file = join(dir, 'mirror.db');
  copyFileSync(mm.file, file);
  const m = Mirror.open(file);
  const farm = m.read.farms(MILLION_ACCOUNT)[0]!;
  m.write.createParcels(farm.local_id, [polygonParcel('Lone field', LONE[0], LONE[1], 120)]);
  const gone = m.write.createParcels(farm.local_id, [polygonParcel('Deleted field', DELETED[0], DELETED[1], 120)]).created[0]!;
  m.write.deleteParcel(gone.local_id);
  m.write.addAccount({ id: OTHER, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
  m.write.createParcels(m.write.createFarm(OTHER, 'Theirs').local_id, [polygonParcel('Their field', THEIRS[0], THEIRS[1], 120)]);
  m.close();
  // As the service holds it: synced (the fixture's rows are; the op of this one is done).
  const db = new Database(file);
  db.prepare("UPDATE outbox SET state = 'committed'").run();
  const at = (order: string) => db.prepare(`SELECT name, (minx + maxx) / 2 AS lon, (miny + maxy) / 2 AS lat FROM parcels
    WHERE name NOT IN ('Lone field', 'Deleted field', 'Their field') ORDER BY ${order} LIMIT 1`).get() as typeof west;
  west = at('minx');
  east = at('maxx DESC');
  db.close();
  app = await startBrowserApp(file, MILLION_ACCOUNT);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** [lon, lat] under a page point, as the map's cursor read-out says. */
async function lonLatAt(page: Page, x: number, y: number): Promise<[number, number]> {
  await page.mouse.move(x, y);
  await expect.poll(async () => (await page.locator('.cursor-position').textContent()) ?? '').toMatch(/\d/);
  const [lon, lat] = ((await page.locator('.cursor-position').textContent()) ?? '').split(',').map((s) => Number(s.trim()));
  return [lon!, lat!];
}

const mercY = (lat: number) => Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));

/** The page point of [lon, lat], from the read-out at two corners of the map (Web Mercator: linear in x and in mercY). */
async function pointOf(page: Page): Promise<(lon: number, lat: number) => { x: number; y: number }> {
  const box = (await page.locator('.map .ol-viewport').boundingBox())!;
  const [x0, y0, x1, y1] = [box.x + 100, box.y + 100, box.x + box.width - 100, box.y + box.height - 100];
  const [lon0, lat0] = await lonLatAt(page, x0, y0);
  const [lon1, lat1] = await lonLatAt(page, x1, y1);
  return (lon, lat) => ({ x: x0 + ((lon - lon0) / (lon1 - lon0)) * (x1 - x0), y: y0 + ((mercY(lat) - mercY(lat0)) / (mercY(lat1) - mercY(lat0))) * (y1 - y0) });
}

/** The colours of the map's pixels within `r` of a page point, as the user sees them. */
async function coloursAround(page: Page, p: { x: number; y: number }, r = 3): Promise<Rgb[]> {
  const viewport = page.locator('.map .ol-viewport');
  const box = (await viewport.boundingBox())!;
  const { width, data } = decodePng(await viewport.screenshot());
  const scale = width / box.width;
  const out: Rgb[] = [];
  for (let dy = -r; dy <= r; dy++) {
    for (let dx = -r; dx <= r; dx++) {
      const i = (Math.round((p.y - box.y + dy) * scale) * width + Math.round((p.x - box.x + dx) * scale)) * 4;
      out.push([data[i]!, data[i + 1]!, data[i + 2]!]);
    }
  }
  return out;
}

type Rgb = [number, number, number];
const rgbOf = (hex: string): Rgb => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

/** Within 40 of each channel of '#rrggbb'. */
const near = (c: Rgb, hex: string) => rgbOf(hex).every((v, i) => Math.abs(c[i]! - v) < 40);

/**
 * Whether some pixel is tinted `hex` over the map's background (the commonest colour around): a dot of about 3 px is
 * drawn into its tile's image, which the view scales between tile zooms, so its pixels may all be its colour blended
 * with the background (one blended pixel 42 off PENDING's blue failed the exact-colour check that was here). A tint
 * is a pixel that is such a blend, background + a × (colour − background), at least 35 % of the colour, within a few
 * levels: the states' colours are no blend of one another over this background, nor is the grey of a border line.
 * For what must show; what must not show is checked on exact colours (`near`), which a faint line cannot pass for.
 */
const tinted = (colours: Rgb[], hex: string): boolean => {
  const counts = new Map<string, number>();
  for (const c of colours) counts.set(c.join(), (counts.get(c.join()) ?? 0) + 1);
  const bg = [...counts].sort((a, b) => b[1] - a[1])[0]![0].split(',').map(Number) as Rgb;
  const to = rgbOf(hex).map((v, i) => v - bg[i]!);
  const toLen2 = to.reduce((s, v) => s + v * v, 0);
  return colours.some((c) => {
    const d = c.map((v, i) => v - bg[i]!);
    const a = d.reduce((s, v, i) => s + v * to[i]!, 0) / toLen2;
    return a >= 0.35 && Math.hypot(...d.map((v, i) => v - a * to[i]!)) < 10;
  });
};
const SYNCED = '#2e7d32';
const PENDING = '#b26b00';

describe('every parcel at every zoom', () => {
  it('zoomed all the way out draws parcels far apart, selects the exact parcel under a click, and shows an edit at once', async () => {
    const { page, problems } = await openApp(browser, app.url);
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('furrow:parcels-drawn').length), { timeout: 60_000 }).toBe(1);
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    // Headless Chromium drops the page's first pointer gesture: a short drag first.
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx + 20, cy, { steps: 4 });
    await page.mouse.up();
    // Wheel out until the lone parcel and the farthest east are both well inside the map.
    for (let i = 0; i < 14; i++) {
      const at = await pointOf(page);
      const [a, b] = [at(LONE[0], LONE[1]), at(east.lon, east.lat)];
      const inside = (p: { x: number; y: number }) => p.x > box.x + 150 && p.x < box.x + box.width - 150 && p.y > box.y + 150 && p.y < box.y + box.height - 150;
      if (inside(a) && inside(b)) break;
      await page.mouse.move(cx, cy);
      await page.mouse.wheel(0, 300);
      await page.waitForTimeout(600);
    }
    await expect.poll(() => page.locator('.map').getAttribute('data-parcel-renderer'), { timeout: 30_000 }).toBe('tiles');
    await expect.poll(() => page.locator('.legend .shown').textContent(), { timeout: 30_000 }).toMatch(/^All parcels in view shown/);
    const at = await pointOf(page);
    // Every one drawn, however far apart: the lone parcel (a dot: it is far below a pixel), the farthest west and east.
    for (const [lon, lat] of [LONE, [west.lon, west.lat], [east.lon, east.lat]] as const) {
      await expect.poll(async () => tinted(await coloursAround(page, at(lon, lat)), SYNCED), { timeout: 30_000 }).toBe(true);
    }
    // Neither the deleted parcel nor another account's is drawn, in any colour of a parcel.
    for (const [lon, lat] of [DELETED, THEIRS]) {
      expect((await coloursAround(page, at(lon, lat))).some((c) => near(c, SYNCED) || near(c, PENDING))).toBe(false);
    }
    await page.screenshot({ path: join(SHOTS, 'map-tiles-all.png') });

    // A click on the lone parcel's dot: the host finds it on its exact geometry.
    const lone = at(LONE[0], LONE[1]);
    await page.mouse.click(lone.x, lone.y);
    await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 15_000 }).toBe('Lone field');
    // 12 px beside it there is no parcel within the click's 3 px: nothing is selected.
    await page.mouse.click(lone.x, lone.y + 12);
    await page.waitForTimeout(1000);
    expect(await page.locator('[data-field=name]').count()).toBe(0);

    // Renamed, it is pending: its dot turns from the synced colour to the pending one, the map not moved.
    await page.mouse.click(lone.x, lone.y);
    await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 15_000 }).toBe('Lone field');
    const editor = page.getByRole('form', { name: 'Edit parcel' });
    await editor.getByLabel('Name').fill('Lone field, renamed');
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 15_000 }).toBe('Lone field, renamed');
    // Unselected (a click where there is no parcel), so that its own dot shows, not the selection's outline.
    await page.mouse.click(lone.x, lone.y + 40);
    await expect.poll(() => page.locator('[data-field=name]').count()).toBe(0);
    // Where it is on the page now, read again: with a second account in the mirror its dot was found 7 px below where
    // the read-out said before the edit (the page's layout around the map changed after the save, it seems).
    // Read again at each try: under load the layout may still move after the first read.
    const now = async () => (await pointOf(page))(LONE[0], LONE[1]);
    await expect.poll(async () => tinted(await coloursAround(page, await now()), PENDING), { timeout: 15_000 }).toBe(true);
    expect((await coloursAround(page, await now())).some((c) => near(c, SYNCED))).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'map-tiles-edited.png') });
    expect(await problems()).toEqual([]);
    await page.context().close();
  }, 300_000);
});
