// How parcels are drawn on the map, end to end (`npm start`'s launcher with the embedded demo service, Debian's
// Chromium at 1280×800), issue 29 items 8 and 16:
// - names: at each demo farm's zoom every parcel in view is named (inside its shape, smaller, or beside it with a
//   leader), no name over another, over the graticule's labels or over the legend, none past the map's edge; the
//   names the placement chose (its `furrow:labels` mark) are checked for ink in a screenshot, so a name hidden under
//   something (the orchard's under its plants) counts as missing;
// - the graticule's labels: at every scale, apart from each other and whole inside the map (at 1280 px and at 200 %
//   zoom), the ink of the map's top and right edges all inside their boxes;
// - sync states: each has its own mark in the legend (dashes, hatch, symbol), a pending parcel's outline is dashed in
//   the darker orange, a conflict's fill hatched and its name marked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Page } from 'playwright-core';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { decodePng, demoApi, drawSquare, lonLatAt, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { COVERING } from '../../renderer/features/map/covering.ts';

type Box = [number, number, number, number];
interface Labels { parcels: number; graticule: Box[]; placed: { id: string; text: string; kind: string; size: number; box: Box; leader: [[number, number], [number, number]] | null }[] }

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;
/** A blank page of the same browser that decodes screenshots. */
const poll = <T>(f: () => Promise<T>, timeout = 30_000) => expect.poll(f, { timeout });

beforeAll(async () => {
  ctx = await startDemoApp('furrow-map-labels-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

/** The names the map placed last (parcel-labels.ts's mark), or null before any. */
const labels = () => page.evaluate(() => ((performance.getEntriesByName('furrow:labels', 'mark').at(-1) as PerformanceMark | undefined)?.detail ?? null) as Labels | null);

/** The map's viewport in the page. */
const mapBox = async () => (await page.locator('.map .ol-viewport').boundingBox())!;

/** The page's pixels in a box (page pixels), from a screenshot decoded in Node (test/helpers/png.ts). */
async function region(x: number, y: number, width: number, height: number): Promise<Shot> {
  const clip = { x: Math.floor(x), y: Math.floor(y), width: Math.ceil(width), height: Math.ceil(height) };
  const png = await page.screenshot({ clip });
  const data = decodePng(png);
  return { x: clip.x, y: clip.y, ...data };
}

interface Shot { x: number; y: number; width: number; data: Uint8Array }
/** The colour at a page pixel inside the shot. */
const at = (s: Shot, x: number, y: number): [number, number, number] => {
  const i = ((Math.round(y) - s.y) * s.width + (Math.round(x) - s.x)) * 4;
  return [s.data[i]!, s.data[i + 1]!, s.data[i + 2]!];
};
const hex = (h: string): [number, number, number] => [1, 3, 5].map((i) => Number.parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
const near = (a: [number, number, number], b: [number, number, number], tolerance: number) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!))) <= tolerance;
/** Pixels of a label's text (#222 on a white halo) in its box (page pixels): darker than any fill, outline, plant or graticule line. */
async function ink(box: Box): Promise<number> {
  const s = await region(box[0], box[1], box[2] - box[0], box[3] - box[1]);
  let n = 0;
  for (let i = 0; i < s.data.length; i += 4) if (s.data[i]! < 80 && s.data[i + 1]! < 80 && s.data[i + 2]! < 80) n++;
  return n;
}
const overlaps = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/**
 * The names at rest once the map shows `count` parcels: every one placed, apart, inside the map, off the graticule's
 * labels and the legend, and drawn (ink in a screenshot where each was placed).
 */
async function expectEveryParcelNamed(count: number, shot: string): Promise<Labels> {
  await poll(() => shownOn(page)).toBe(count);
  await poll(async () => (await labels())?.parcels).toBe(count);
  await page.waitForTimeout(500); // the last frame drawn after the placement
  const l = (await labels())!;
  const map = await mapBox();
  expect(l.placed.map((p) => p.text).sort(), 'every parcel in view named').toHaveLength(count);
  const legend = (await page.locator('.legend').boundingBox())!;
  const legendBox: Box = [legend.x - map.x, legend.y - map.y, legend.x + legend.width - map.x, legend.y + legend.height - map.y];
  for (const p of l.placed) {
    expect(p.box[0], p.text).toBeGreaterThanOrEqual(0);
    expect(p.box[1], p.text).toBeGreaterThanOrEqual(0);
    expect(p.box[2], p.text).toBeLessThanOrEqual(map.width);
    expect(p.box[3], p.text).toBeLessThanOrEqual(map.height);
    expect(overlaps(p.box, legendBox), `${p.text} under the legend`).toBe(false);
    for (const g of l.graticule) expect(overlaps(p.box, g), `${p.text} over a graticule label`).toBe(false);
  }
  for (const [i, a] of l.placed.entries()) for (const b of l.placed.slice(i + 1)) expect(overlaps(a.box, b.box), `${a.text} over ${b.text}`).toBe(false);
  await page.screenshot({ path: join(SHOTS, `${shot}.png`) });
  for (const p of l.placed) expect(await ink([p.box[0] + map.x, p.box[1] + map.y, p.box[2] + map.x, p.box[3] + map.y]), `${p.text} drawn`).toBeGreaterThan(40);
  return l;
}

describe('parcel names on the map', () => {
  it('names every parcel of the start\'s farm at its zoom, the ones too small for their name beside them', async () => {
    await waitOnline(page);
    const l = await expectEveryParcelNamed(12, 'app-labels-olivar');
    // The small ones: a smaller font inside, or beside with a leader.
    expect(l.placed.find((p) => p.text === 'Olivar G')?.kind).toMatch(/^(small|beside)$/);
    expect(l.placed.find((p) => p.text === 'El trial plot')?.kind).toBe('beside');
    expect(l.placed.filter((p) => p.kind === 'inside').length).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('names every parcel of the other farm at its zoom', async () => {
    await page.getByRole('button', { name: /Hof Sonnenfeld/ }).click();
    await poll(async () => (await labels())?.placed.some((p) => p.text.startsWith('Sonnenfeld'))).toBe(true);
    await expectEveryParcelNamed(12, 'app-labels-sonnenfeld');
  }, 60_000);

  it('draws the orchard\'s name above its plants', async () => {
    await page.getByRole('button', { name: /Almendral La Vega/ }).click();
    await poll(async () => (await labels())?.placed.map((p) => p.text)).toEqual(['Almond orchard']);
    await page.getByLabel('Plants').check();
    await poll(() => page.locator('.legend').textContent()).toMatch(/Plants — \d+ shown/);
    await expectEveryParcelNamed(1, 'app-labels-orchard');
    expect(await problems()).toEqual([]);
  }, 60_000);
});

/**
 * The graticule's labels at rest: apart, whole inside the map, each with ink where it is said to be, and no label ink
 * in the map's top row or right column outside them (a label cut at an edge, or one the boxes do not know, would be).
 */
async function expectGraticuleApart(p: Page, shot: string): Promise<Box[]> {
  // At rest: under load (CI's workers beside Chromium) a zoom's last frames can still be painting when the pixels are
  // read, and a label read half-drawn (ink 7 of a whole label's hundreds) is no label cut; one that stays so is.
  for (let attempt = 1; ; attempt++) {
    try {
      return await graticuleApart(p, shot);
    } catch (err) {
      if (attempt === 3) throw err;
      await p.waitForTimeout(1000);
    }
  }
}

async function graticuleApart(p: Page, shot: string): Promise<Box[]> {
  const map = (await p.locator('.map .ol-viewport').boundingBox())!;
  const read = () => p.evaluate(() => ((performance.getEntriesByName('furrow:labels', 'mark').at(-1) as PerformanceMark | undefined)?.detail ?? null) as Labels | null);
  /** How many times the labels were placed so far: a placement between reading the boxes and the pixels moves them. */
  const placements = () => p.evaluate(() => performance.getEntriesByName('furrow:labels', 'mark').length);
  await p.waitForTimeout(500);
  await poll(async () => (await read())?.graticule.length ?? 0).toBeGreaterThanOrEqual(2);
  // The boxes and the pixels of one placement: read again while the map was still placing (a late tile, the world
  // backdrop arriving: under load it goes on for a while).
  let placed = await placements();
  let l = (await read())!;
  await p.screenshot({ path: join(SHOTS, `${shot}.png`) });
  // The screenshot's pixels of a strip of the map (decoded in a page of its own: the whole map would be millions of
  // numbers to pass), read in CSS pixels of the map (a device scale of 2 at 200 % zoom: every second pixel).
  const strip = async (x: number, y: number, width: number, height: number) => {
    const png = await p.screenshot({ clip: { x: map.x + x, y: map.y + y, width, height } });
    const d = decodePng(png);
    const k = d.width / width;
    return (px: number, py: number) => {
      const i = (Math.floor((py - y) * k) * d.width + Math.floor((px - x) * k)) * 4;
      return d.data[i]! < 60 && d.data[i + 1]! < 60 && d.data[i + 2]! < 60;
    };
  };
  const column = Math.floor(map.width * 0.8);
  let top = await strip(0, 0, map.width, 22);
  let right = await strip(column, 22, map.width - column, map.height - 22);
  for (let again = 0; again < 10 && (await placements()) !== placed; again++) {
    await p.waitForTimeout(300);
    placed = await placements();
    l = (await read())!;
    top = await strip(0, 0, map.width, 22);
    right = await strip(column, 22, map.width - column, map.height - 22);
  }
  const g = l.graticule;
  for (const b of g) {
    expect(b[0], JSON.stringify(b)).toBeGreaterThanOrEqual(0);
    expect(b[1], JSON.stringify(b)).toBeGreaterThanOrEqual(0);
    expect(b[2], JSON.stringify(b)).toBeLessThanOrEqual(map.width);
    expect(b[3], JSON.stringify(b)).toBeLessThanOrEqual(map.height);
  }
  for (const [i, a] of g.entries()) for (const b of g.slice(i + 1)) expect(overlaps(a, b), `graticule labels ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`).toBe(false);
  const dark = (x: number, y: number) => (y < 22 ? top(x, y) : x >= column ? right(x, y) : false);
  // Parcel names and their leaders are drawn dark too.
  const leaders = l.placed.flatMap((q) => (q.leader ? [[Math.min(q.leader[0][0], q.leader[1][0]) - 2, Math.min(q.leader[0][1], q.leader[1][1]) - 2, Math.max(q.leader[0][0], q.leader[1][0]) + 2, Math.max(q.leader[0][1], q.leader[1][1]) + 2] as Box] : []));
  const covered: Box[] = [...g, ...l.placed.map((q) => q.box), ...leaders];
  // What covers the map (its controls, drawn dark too) is no label.
  for (const sel of COVERING) {
    for (const b of await p.locator(sel).all()) {
      const r = await b.boundingBox();
      if (r) covered.push([r.x - map.x - 2, r.y - map.y - 2, r.x - map.x + r.width + 2, r.y - map.y + r.height + 2]);
    }
  }
  const inside = (x: number, y: number) => covered.some((b) => x >= b[0] - 1 && x <= b[2] + 1 && y >= b[1] - 1 && y <= b[3] + 1);
  const stray: string[] = [];
  for (let y = 0; y < 22; y++) for (let x = 0; x < map.width; x++) if (dark(x, y) && !inside(x, y)) stray.push(`${x},${y}`);
  for (let y = 22; y < map.height; y++) for (let x = column; x < map.width; x++) if (dark(x, y) && !inside(x, y)) stray.push(`${x},${y}`);
  expect(stray.slice(0, 10), 'label ink outside the graticule boxes').toEqual([]);
  // Each box has ink where it is: in the strips read (the latitudes' column, the longitudes' row).
  for (const b of g.filter((x) => x[1] < 22 || x[0] >= column)) {
    let ink = 0;
    for (let y = Math.ceil(b[1]); y < Math.min(b[3], map.height); y++) for (let x = Math.ceil(b[0]); x < Math.min(b[2], map.width); x++) if (dark(x, y)) ink++;
    expect(ink, `ink of the graticule label at ${JSON.stringify(b)}`).toBeGreaterThan(15);
  }
  return g;
}

describe("the graticule's labels", () => {
  it('are apart and whole at the farm\'s scale and at field scale, at 1280 px', async () => {
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await poll(async () => (await labels())?.placed.some((p) => p.text.startsWith('Olivar'))).toBe(true);
    await expectGraticuleApart(page, 'app-graticule-farm');
    // Field scale: two zoom steps in, where the trial saw "4° 47′ 40″ W4° 47′ 20″ W…".
    await page.locator('.map').focus();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await page.waitForTimeout(800);
    const g = await expectGraticuleApart(page, 'app-graticule-field');
    expect(g.filter((b) => b[1] === 0).length, 'longitudes along the top').toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('are apart and whole at 200 % zoom, none cut under the toolbar', async () => {
    const context = await ctx.browser.newContext({ viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 });
    const zoomed = await context.newPage();
    await zoomed.goto(ctx.app.url);
    await waitOnline(zoomed);
    await poll(() => zoomed.locator('.legend .shown').textContent(), 60_000).toMatch(/^[1-9]\d* parcels? shown/);
    await expectGraticuleApart(zoomed, 'app-graticule-zoom200');
    await zoomed.locator('.map').focus();
    await zoomed.keyboard.press('+');
    await zoomed.waitForTimeout(800);
    await expectGraticuleApart(zoomed, 'app-graticule-zoom200-field');
    await context.close();
  }, 90_000);
});

describe('sync states told apart without colour', () => {
  it('shows each state\'s own mark in the legend', async () => {
    const rows = await page.locator('.legend li[data-state]').evaluateAll((lis) => lis.map((li) => ({
      state: li.getAttribute('data-state'), text: li.textContent,
      dash: li.querySelector('svg')?.getAttribute('data-dash'), hatch: li.querySelector('svg')?.getAttribute('data-hatch'),
    })));
    expect(rows.map((r) => r.state)).toEqual(['synced', 'pending', 'sending', 'uncertain', 'rejected', 'conflict', 'blocked']);
    expect(new Set(rows.map((r) => `${r.dash}|${r.hatch}|${r.text}`)).size).toBe(7);
    expect(rows.find((r) => r.state === 'synced')).toMatchObject({ dash: 'solid', hatch: 'none', text: 'Synced' });
    expect(rows.find((r) => r.state === 'pending')).toMatchObject({ dash: '7 4', hatch: 'none' });
    expect(rows.find((r) => r.state === 'rejected')).toMatchObject({ hatch: 'diagonal', text: '×Rejected' });
    expect(rows.find((r) => r.state === 'conflict')).toMatchObject({ hatch: 'cross', text: '!Conflict' });
    await page.locator('.legend').screenshot({ path: join(SHOTS, 'app-legend-states.png') });
  });

  it('draws a pending parcel\'s outline dashed in the darker orange, and a conflict hatched with its mark', async () => {
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await poll(async () => (await labels())?.placed.some((p) => p.text === 'Olivar F')).toBe(true);
    const map = await mapBox();
    // Between the farm's second and third rows of parcels: midway from Olivar F to Olivar B below it, wherever the fit
    // put the farm (its room follows what covers the map).
    const api = demoApi(ctx);
    const centre = async (name: string) => {
      const ring = (await api.parcel(name))!.geometry.coordinates[0]!;
      return [ring.reduce((n, c) => n + c[0]!, 0) / ring.length, ring.reduce((n, c) => n + c[1]!, 0) / ring.length] as const;
    };
    const [olivarF, olivarB] = [await centre('Olivar F'), await centre('Olivar B')];
    /** That spot in page pixels, as the map shows it now (read off its cursor read-out at two points). */
    const spot = async () => {
      await page.waitForTimeout(500); // the fit's animation
      const [x1, y1, x2, y2] = [map.x + 100, map.y + 100, map.x + map.width - 100, map.y + map.height - 100];
      const [[lon1, lat1], [lon2, lat2]] = [await lonLatAt(page, x1, y1), await lonLatAt(page, x2, y2)];
      const [lon, lat] = [(olivarF[0] + olivarB[0]) / 2, (olivarF[1] + olivarB[1]) / 2];
      return [x1 + ((lon - lon1) / (lon2 - lon1)) * (x2 - x1), y1 + ((lat - lat1) / (lat2 - lat1)) * (y2 - y1)] as const;
    };
    const [cx, cy] = await spot();
    const half = 24;
    await drawSquare(page, cx, cy, half, 'E2E pending square');
    expect(await page.locator('[data-field=state]').textContent()).toBe('Pending');
    // Nothing selected (a click on the map's empty ground), so no selection outline hides the marks.
    await page.mouse.click(cx - 150, cy);
    await poll(() => page.locator('[data-field=name]').count()).toBe(0);
    await page.waitForTimeout(500);
    // Its top edge: dashes of the darker orange (#b26b00) with gaps of background between them.
    const edge = await region(cx - half, cy - half - 3, 2 * half, 7);
    const runs: boolean[] = [];
    for (let x = cx - half + 4; x <= cx + half - 4; x++) runs.push([-1, 0, 1].some((d) => near(at(edge, x, cy - half + d), hex('#b26b00'), 40)));
    expect(runs.filter(Boolean).length, 'outline in the darker orange').toBeGreaterThan(10);
    expect(runs.filter((on, i) => on && !runs[i - 1]).length, 'separate dashes along one edge').toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: join(SHOTS, 'app-state-pending.png') });

    // A conflict: renamed here and on the service, then synced.
    const olivarH = (await api.parcel('Olivar H'))!;
    await page.locator('.top h1').click();
    await page.keyboard.press('/');
    await page.keyboard.type('Olivar H');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(/^Olivar H/);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-field=name]').textContent()).toBe('Olivar H');
    const form = page.getByRole('form', { name: 'Edit parcel' });
    await form.getByLabel('Name').fill('Olivar H here');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.locator('[data-field=state]').textContent()).toBe('Pending');
    expect((await api.send('PATCH', `/api/parcels/${olivarH.id}/`, { name: 'Olivar H there' })).status).toBe(200);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await poll(() => page.locator('[data-field=state]').textContent()).toBe('Conflict');
    // Back to the farm's view (the search zoomed to Olivar H), once there nothing selected.
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await poll(async () => (await labels())?.parcels).toBe(13);
    // The fit leaves room for what covers the map as it is now (the legend's size changed since): the spot read again.
    const [cx2, cy2] = await spot();
    await page.mouse.click(cx2 - 150, cy2);
    await poll(() => page.locator('[data-field=name]').count()).toBe(0);
    await poll(async () => (await labels())?.placed.map((p) => p.text)).toContain('! Olivar H here');
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(SHOTS, 'app-states-on-map.png') });
    copyFileSync(join(SHOTS, 'app-states-on-map.png'), join(ROOT, 'docs/img/app-map-states.png'));

    // Olivar H's fill, under its name (inside it: the shape is wide enough): the conflict's crossed hatch in purple.
    const b = (await labels())!.placed.find((p) => p.text === '! Olivar H here')!;
    expect(b.kind).toBe('inside');
    const [bx, by] = [map.x + (b.box[0] + b.box[2]) / 2, map.y + b.box[3] + 2];
    const fill = await region(bx - 10, by, 20, 12);
    let purple = 0;
    for (let y = by; y < by + 12; y++) for (let x = bx - 10; x < bx + 10; x++) if (near(at(fill, x, y), hex('#8e24aa'), 60)) purple++;
    expect(purple, 'hatch lines in the conflict colour').toBeGreaterThan(20);
    expect(await problems()).toEqual([]);
  }, 120_000);
});
