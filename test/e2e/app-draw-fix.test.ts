// Fixing what was drawn or typed wrong, end to end (`npm start`'s launcher with the embedded demo service, Debian's
// Chromium) — issue 29's items 9 and 12. A polygon typed as a bow tie is not thrown away: where it crosses is marked
// on the map, the user splits it into its two valid parts (two parcels the service takes), or, another time, drags a
// vertex on the map or retypes one until it no longer crosses, and saves it. A vertex typed as latitude, longitude
// (`37.88, -4.79` style) near the farm in view is caught: the warning offers the swap, taken with one key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { checkPolygon } from '../../core/parcels/polygon.ts';
import { reporter } from '../../core/parcels/problems.ts';
import { crossingsOf } from '../../core/parcels/fix-polygon.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-draw-fix-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const status = () => page.locator('.statusbar .message').textContent();
const round = (x: number) => Math.round(x * 1e6) / 1e6;
const vertexField = () => page.getByLabel('Vertex (longitude, latitude)');
const count = () => page.locator('.lonlat .muted').textContent();

/** Starts drawing (D) and types each vertex, then Finish polygon. */
async function typePolygon(ring: [number, number][]): Promise<void> {
  await page.locator('.top h1').click();
  await page.keyboard.press('d');
  await poll(() => page.locator('#panel-title').textContent()).toBe('Drawing a parcel');
  for (const [i, [lon, lat]] of ring.entries()) {
    await vertexField().fill(`${lon}, ${lat}`);
    await vertexField().press('Enter');
    await poll(count).toBe(`${i + 1} ${i ? 'vertices' : 'vertex'}`);
  }
  await page.getByRole('button', { name: 'Finish polygon' }).click();
  await poll(() => page.locator('#panel-title').textContent()).toBe('New parcel');
}

/** Where a [lon, lat] is on the page, from the map's cursor read-out at two points (linear at field scale). */
async function projection(): Promise<(lon: number, lat: number) => [number, number]> {
  const { cx, cy } = await mapCentre(page);
  const [lon1, lat1] = await lonLatAt(page, cx - 200, cy - 150);
  const [lon2, lat2] = await lonLatAt(page, cx + 200, cy + 150);
  return (lon, lat) => [cx - 200 + ((lon - lon1) / (lon2 - lon1)) * 400, cy - 150 + ((lat - lat1) / (lat2 - lat1)) * 300];
}

/** Whether the map's canvases show the crossing mark's red (#d32f2f) within a few pixels of (x, y). */
const redNear = (x: number, y: number) => page.evaluate(([px, py]) => {
  for (const canvas of document.querySelectorAll<HTMLCanvasElement>('.map canvas')) {
    const box = canvas.getBoundingClientRect();
    const ctx2d = canvas.getContext('2d');
    if (!ctx2d || box.width === 0) continue;
    const k = canvas.width / box.width;
    const data = ctx2d.getImageData(Math.round((px! - box.x - 12) * k), Math.round((py! - box.y - 12) * k), Math.round(24 * k), Math.round(24 * k)).data;
    for (let i = 0; i < data.length; i += 4) if (data[i]! > 180 && data[i + 1]! < 90 && data[i + 2]! < 90 && data[i + 3]! > 200) return true;
  }
  return false;
}, [x, y]);

/** A bow tie about `w`° wide, its top-left corner at (lon, lat): A, B (bottom right), C (top right), D (bottom left). */
const bowTie = (lon: number, lat: number, w: number, h: number): [number, number][] =>
  [[lon, lat], [lon + w, lat - h], [lon + w, lat], [lon, lat - h]].map(([x, y]) => [round(x!), round(y!)] as [number, number]);

describe('fixing a polygon that crosses itself', () => {
  let origin: [number, number];

  it('marks where a typed bow tie crosses and splits it into two parcels the service takes', async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    // A free spot: just below the farm in view (the map pans to what is typed).
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    origin = await lonLatAt(page, box.x + box.width / 2, box.y + box.height - 2);
    await page.mouse.move(box.x + box.width + 100, box.y + 10); // off the map: no pointer vertex follows
    await typePolygon(bowTie(origin[0], origin[1] - 0.002, 0.003, 0.002));

    const alert = page.locator('.draft-fix [role=alert]');
    await poll(() => alert.textContent()).toMatch(/crosses or touches itself: .* — it cannot be saved like this: drag a vertex on the map \(where it crosses is marked in red\), or retype it under Vertices\.$/);
    // Its loops cancel out: no area is shown for it, not "0.00 ha".
    expect(await page.locator('[data-field=draft-hectares]').textContent()).toBe('none while it crosses itself');
    expect(await page.getByRole('button', { name: 'Save parcel' }).isDisabled()).toBe(true);
    // The crossing, in the bow tie's middle, is marked on the map.
    await page.waitForTimeout(600); // the pan to the typed vertices
    const toPixel = await projection();
    await page.mouse.move(box.x + box.width + 100, box.y + 10);
    const middle = toPixel(origin[0] + 0.0015, origin[1] - 0.003);
    await poll(() => redNear(...middle)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-draw-crossing.png') });

    // Split: two parts, named after the parcel, saved together.
    await page.getByRole('button', { name: 'Split into 2 parcels' }).click();
    await poll(() => page.locator('.draft-fix[role=status]').textContent()).toMatch(/^Split where it crosses into 2 parcels, [\d.]+ ha and [\d.]+ ha: name them below and save them\./);
    // The area above says the parts', no longer "none while it crosses itself".
    const [a1, a2] = /([\d.]+) ha and ([\d.]+) ha/.exec((await page.locator('.draft-fix[role=status]').textContent())!)!.slice(1).map(Number);
    const area = /^([\d.]+) ha in 2 parcels$/.exec((await page.locator('[data-field=draft-hectares]').textContent()) ?? '');
    expect(area, 'the parts\' area').not.toBeNull();
    expect(Math.abs(Number(area![1]) - (a1! + a2!))).toBeLessThanOrEqual(0.011);
    await page.screenshot({ path: join(SHOTS, 'app-draw-split.png') });
    // The Split button is gone: the focus is on what saves the parts, not the page's body.
    await poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toBe('Save 2 parcels');
    await page.getByLabel('Name').fill('Bow tie by the lower terraces of the river');
    await page.getByRole('button', { name: 'Save 2 parcels' }).click();
    await poll(status).toMatch(/^Saved Bow tie by the lower terraces of the river \(part 1 of 2\) \([\d.]+ ha\) and Bow tie by the lower terraces of the river \(part 2 of 2\) \([\d.]+ ha\): they are sent at the next sync\.$/);
    // A long message is read whole in the status line (it wraps onto a second line), not cut with an ellipsis.
    expect(await page.locator('.statusbar .message').evaluate((e) => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1)).toBe(true);

    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const api = demoApi(ctx);
    for (const name of ['Bow tie by the lower terraces of the river (part 1 of 2)', 'Bow tie by the lower terraces of the river (part 2 of 2)']) {
      await poll(async () => (await api.parcel(name))?.properties.name).toBe(name);
      const p = (await api.parcel(name))!;
      const r = reporter(0);
      expect(checkPolygon(p.geometry.coordinates, r, '', 100)).not.toBeNull();
      expect(p.geometry.coordinates[0]).toHaveLength(4); // a triangle, closed
      expect(p.properties.hectares).toBeGreaterThan(1); // a quarter of the 6 ha box each
    }
    expect(await problems()).toEqual([]);
  }, 180_000);

  it('lets a bow tie be fixed by dragging a vertex on the map, or by retyping it, and saves it', async () => {
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    const ring = bowTie(origin[0] + 0.005, origin[1] - 0.002, 0.003, 0.002);
    await typePolygon(ring);
    await poll(() => page.locator('.draft-fix [role=alert]').count()).toBe(1);
    await page.waitForTimeout(600);
    const toPixel = await projection();
    // Drag C (top right) down below the shape: A, B, C, D no longer cross.
    const from = toPixel(...ring[2]!);
    const to = toPixel(ring[0]![0] + 0.0015, ring[0]![1] - 0.004);
    await page.mouse.move(...from);
    await page.mouse.down();
    await page.mouse.move((from[0] + to[0]) / 2, (from[1] + to[1]) / 2, { steps: 5 });
    await page.mouse.move(...to, { steps: 5 });
    await page.mouse.up();
    await page.mouse.move(box.x + box.width + 100, box.y + 10);
    await poll(() => page.locator('.draft-fix').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save parcel' }).isEnabled()).toBe(true);
    const area = Number.parseFloat((await page.locator('[data-field=draft-hectares]').textContent()) ?? '');
    expect(area).toBeGreaterThan(3);
    await page.getByLabel('Name').fill('Fixed on the map');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await poll(status).toMatch(/^Saved Fixed on the map \([\d.]+ ha\)/);

    // Another one fixed from the keyboard: vertex 3 retyped under Vertices, below the shape.
    const third = bowTie(origin[0] + 0.01, origin[1] - 0.002, 0.003, 0.002);
    await typePolygon(third);
    const v3 = page.getByLabel('Vertex 3 (longitude, latitude)');
    await v3.fill(`${round(third[0]![0] + 0.0015)}, ${round(third[0]![1] - 0.004)}`);
    await v3.press('Enter');
    await poll(() => page.locator('.draft-fix').count()).toBe(0);
    await page.getByLabel('Name').fill('Fixed by typing');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await poll(status).toMatch(/^Saved Fixed by typing \([\d.]+ ha\)/);

    // Modify (M) of the parcel just saved: a vertex retyped latitude first is caught there too, and swapped with Enter.
    await page.locator('.top h1').click();
    await page.keyboard.press('m');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Modifying Fixed by typing');
    const before = await page.locator('[data-field=modify-hectares]').textContent();
    await page.locator('.vertices summary').click();
    const v1 = page.getByLabel('Vertex 1 (longitude, latitude)');
    // Moved north: vertex 1's neighbours lie on one parallel, so a move along it would keep the area.
    const moved: [number, number] = [third[0]![0], round(third[0]![1] + 0.001)];
    await v1.fill(`${moved[1]}, ${moved[0]}`);
    await v1.press('Enter');
    const warning = page.locator('.vertices .swap-warning');
    await poll(() => warning.locator('p').textContent()).toBe(`${moved[1]}, ${moved[0]} is far from the shape; ${moved[0]}, ${moved[1]} is by it. Longitude comes first: were they typed latitude, longitude?`);
    expect(await page.locator('[data-field=modify-hectares]').textContent()).toBe(before);
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Swap to ${moved[0]}, ${moved[1]}`);
    await page.keyboard.press('Enter');
    await poll(() => v1.inputValue()).toBe(`${moved[0]}, ${moved[1]}`);
    await poll(() => page.locator('[data-field=modify-hectares]').textContent()).not.toBe(before);
    expect(await warning.count()).toBe(0);
    // Vertex 3 retyped above the shape: the outline crosses itself, and Modify marks where, as drawing does.
    const crossed: [number, number][] = [moved, third[3]!, [round(third[0]![0] + 0.0015), round(third[0]![1] + 0.002)], third[1]!];
    const v3m = page.getByLabel('Vertex 3 (longitude, latitude)');
    await v3m.fill(`${crossed[2]![0]}, ${crossed[2]![1]}`);
    await v3m.press('Enter');
    await poll(() => page.locator('.panel [role=alert]').first().textContent()).toMatch(/crosses or touches itself/);
    const [at] = crossingsOf(crossed);
    await page.waitForTimeout(300);
    const onPage = await projection();
    await page.mouse.move(box.x + box.width + 100, box.y + 10);
    await poll(() => redNear(...onPage(...at!))).toBe(true);
    await page.locator('.top h1').click();
    await page.keyboard.press('Escape');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');
    expect(await problems()).toEqual([]);
  }, 180_000);
});

describe('a vertex typed latitude first', () => {
  it('is caught when swapped it lies by the farm in view, and swapped with one key', async () => {
    const { cx, cy } = await mapCentre(page);
    const [lon, lat] = (await lonLatAt(page, cx, cy)).map(round) as [number, number];
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    await page.mouse.move(box.x + box.width + 100, box.y + 10);
    await page.locator('.top h1').click();
    await page.keyboard.press('d');
    await vertexField().fill(`${lat}, ${lon}`);
    await vertexField().press('Enter');
    const warning = page.locator('.swap-warning');
    await poll(() => warning.locator('p').textContent())
      .toBe(`${lat}, ${lon} is far from the farm and the map; ${lon}, ${lat} is on them. Longitude comes first: were they typed latitude, longitude?`);
    // Nothing is added until the user says which; the swap has the focus.
    expect(await count()).toBe('0 vertices');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`Swap to ${lon}, ${lat}`);
    await page.screenshot({ path: join(SHOTS, 'app-swap-warning.png') });
    await page.keyboard.press('Enter');
    await poll(count).toBe('1 vertex');
    expect(await vertexField().inputValue()).toBe(`${lon}, ${lat}`);
    expect(await warning.count()).toBe(0);
    // Kept as typed when the user says so; a position typed the right way round is taken at once.
    await vertexField().fill(`${lat}, ${lon + 0.001}`);
    await vertexField().press('Enter');
    await page.getByRole('button', { name: `Keep ${lat}, ${round(lon + 0.001)}` }).click();
    await poll(count).toBe('2 vertices');
    await vertexField().fill(`${lon + 0.002}, ${lat}`);
    await vertexField().press('Enter');
    await poll(count).toBe('3 vertices');
    expect(await warning.count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect(await problems()).toEqual([]);
  }, 120_000);
});
