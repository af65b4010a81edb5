// Drawing and editing without a pointer, as app.test.ts runs the app (`npm start`'s launcher with the embedded demo
// service, Debian's Chromium): Draw polygon (D) with its vertices typed as "longitude, latitude" in a field reached
// with Tab, finished and named from the keyboard; Modify (M) with a vertex retyped in the Vertices list; a hectare
// point (P) placed by its typed position; Sync now (S); and the service holding exactly the typed shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { polygonHectares } from '../../core/geo/area.ts';
import { hectares } from '../../renderer/states.ts';

let ctx: DemoApp;
let browser: Browser;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-keyboard-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const text = async (page: Page, field: string) => (await page.locator(`[data-field=${field}]`).textContent()) ?? '';

/** What has the keyboard's focus: its accessible name as a screen reader would read it (label, aria-label or text). */
const focused = (page: Page) => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return '';
  const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? el.textContent ?? '';
  return label.replace(/\s+/g, ' ').trim();
});

/** Presses Tab until the focus is on the control whose name starts with `name`: the control is reachable by keyboard. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    if ((await focused(page)).startsWith(name)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached "${name}" (last: "${await focused(page)}")`);
}

describe('the app from the keyboard', () => {
  it('draws, modifies and places parcels by typed coordinates, and the service holds exactly them', async () => {
    const { page, problems } = await openApp(browser, ctx.app.url);
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    // A free spot beside the demo farm in view: a little below the map's bottom edge.
    const { cx } = await mapCentre(page);
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    const [lon0, lat0] = await lonLatAt(page, cx, box.y + box.height - 2);
    await page.mouse.move(box.x + box.width + 100, box.y + 10); // off the map: no pointer vertex follows
    const round = (x: number) => Math.round(x * 1e6) / 1e6;
    const ring: [number, number][] = [[0, -0.004], [0.005, -0.004], [0.005, -0.0075], [0, -0.0075]].map(([dx, dy]) => [round(lon0 + dx!), round(lat0 + dy!)]);

    // The mouse works on a map that was never clicked: the wheel zooms (the scale line changes), a drag pans.
    const scale = () => page.locator('.ol-scale-line-inner').textContent();
    const before = await scale();
    const centre = await mapCentre(page);
    await page.mouse.move(centre.cx, centre.cy);
    await page.mouse.wheel(0, -600);
    await poll(scale).not.toBe(before);
    const lonBefore = (await lonLatAt(page, centre.cx, centre.cy))[0];
    await page.mouse.down();
    await page.mouse.move(centre.cx + 150, centre.cy, { steps: 8 });
    await page.mouse.up();
    await poll(async () => (await lonLatAt(page, centre.cx, centre.cy))[0]).toBeLessThan(lonBefore);
    await page.mouse.wheel(0, 600);
    await poll(scale).toBe(before);

    // ? lists every key (the toolbar's ? button too); Esc closes the list.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await poll(() => help.count()).toBe(1);
    expect(await help.locator('dt').allTextContents()).toEqual(expect.arrayContaining(['D', 'Ctrl+Shift+Z', 'Ctrl+F or /', 'R']));
    await page.screenshot({ path: join(SHOTS, 'app-help.png') });
    // At 1280 px the header stays one line: the toolbar never wraps and moves the map.
    expect((await page.locator('header.top').boundingBox())!.height).toBeLessThan(50);
    await page.keyboard.press('Escape');
    await poll(() => help.count()).toBe(0);

    // Draw polygon from the keyboard: D, Tab to the vertex field, each vertex typed and entered.
    await page.locator('body').focus();
    await page.keyboard.press('d');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Drawing a parcel');
    await tabTo(page, 'Vertex (longitude, latitude)');
    // A mistyped one is refused inline, and nothing is added.
    await page.keyboard.type(`200, ${ring[0]![1]}`);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.lonlat [role=alert]').textContent()).toMatch(/Longitude 200 is outside/);
    await expect.poll(() => page.locator('.lonlat .muted').textContent()).toBe('0 vertices');
    for (const [i, [lon, lat]] of ring.entries()) {
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type(i % 2 ? `${String(lon).replace('.', ',')} ${String(lat).replace('.', ',')}` : `${lon}, ${lat}`);
      await page.keyboard.press('Enter');
      await poll(() => page.locator('.lonlat .muted').textContent()).toBe(`${i + 1} ${i ? 'vertices' : 'vertex'}`);
    }
    const expected = polygonHectares([[...ring, ring[0]!]]);
    expect(expected).toBeGreaterThan(5);
    await poll(() => text(page, 'draft-hectares')).toBe(hectares(expected));
    // Enter again on the same text does not add the last vertex twice; Esc leaves the field, the drawing kept.
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.lonlat [role=alert]').textContent()).toBe('That is the last vertex again: type the next one, or Finish polygon.');
    expect(await page.locator('.lonlat .muted').textContent()).toBe('4 vertices');
    await page.keyboard.press('Escape');
    expect(await focused(page)).toBe('');
    expect(await page.locator('#panel-title').textContent()).toBe('Drawing a parcel');
    await tabTo(page, 'Finish polygon');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#panel-title').textContent()).toBe('New parcel');
    // The name field has the focus, its text selected: typing replaces it, Enter saves.
    expect(await focused(page)).toBe('Name');
    await page.keyboard.type('Typed field');
    await page.keyboard.press('Enter');
    await poll(() => text(page, 'name')).toBe('Typed field');
    expect(await text(page, 'hectares')).toBe(hectares(expected));
    await page.screenshot({ path: join(SHOTS, 'app-keyboard-draw.png') });

    // Modify (M): the Vertices list opened from the keyboard, the third vertex retyped.
    await page.keyboard.press('Escape');
    await page.locator('body').focus();
    await page.keyboard.press('m');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Modifying Typed field');
    await tabTo(page, 'Vertices (4)');
    await page.keyboard.press('Enter');
    // The saved ring starts where the service's winding put it: find the typed third vertex by its value.
    const third = ring[2]!;
    const fields = page.locator('.vertices input');
    await poll(() => fields.count()).toBe(4);
    const values = await fields.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    const at = values.indexOf(`${third[0]}, ${third[1]}`);
    expect(at, values.join(' | ')).toBeGreaterThanOrEqual(0);
    const moved: [number, number] = [round(third[0] + 0.002), round(third[1] - 0.001)];
    await tabTo(page, `Vertex ${at + 1} (longitude, latitude)`);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(`${moved[0]}, ${moved[1]}`);
    await page.keyboard.press('Enter');
    const modified = ring.map((p, i) => (i === 2 ? moved : p));
    const expectedModified = polygonHectares([[...modified, modified[0]!]]);
    await poll(() => text(page, 'modify-hectares')).toBe(hectares(expectedModified));
    await page.screenshot({ path: join(SHOTS, 'app-keyboard-modify.png') });
    // Enter kept the focus in the field; Esc leaves it, and Enter saves the shape.
    expect(await focused(page)).toBe(`Vertex ${at + 1} (longitude, latitude)`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');
    await poll(() => text(page, 'hectares')).toBe(hectares(expectedModified));
    // Saved: the focus is on the saved parcel's heading, not the page's body.
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('panel-title');

    // Drop hectare point (P) at a typed position, 5 ha.
    const point: [number, number] = [round(lon0 + 0.012), round(lat0 - 0.006)];
    await page.locator('body').focus();
    await page.keyboard.press('p');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Drop a hectare point');
    await tabTo(page, 'Point at (longitude, latitude)');
    await page.keyboard.type(`${point[0]}; ${point[1]}`);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#panel-title').textContent()).toBe('New hectare point');
    // The hectares field has the focus, its text selected.
    expect(await focused(page)).toBe('Hectares');
    // What was typed is answered in its own terms: a power of ten over the limit, a tiny area in enough digits.
    await page.keyboard.type('1e9');
    await poll(() => page.locator('.side [role=alert]').textContent()).toBe('"1e9" is 1,000,000,000 ha: above the account\'s limit of 100 ha.');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('0.001');
    await poll(() => page.locator('.side p.muted').filter({ hasText: 'The square the service will make' }).textContent()).toMatch(/^The square the service will make: 0\.001 ha centred on -?\d+\.\d{1,6}, -?\d+\.\d{1,6}\./);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('5');
    await tabTo(page, 'Name');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Typed point');
    await page.keyboard.press('Enter');
    await poll(() => text(page, 'name')).toBe('Typed point');
    expect(await text(page, 'hectares')).toBe('5.00 ha');

    // Sync now (S), and the service holds exactly what was typed.
    await page.locator('body').focus();
    await page.keyboard.press('s');
    await poll(async () => (await demoApi(ctx).parcels()).filter((p) => p.properties.name.startsWith('Typed ')).length).toBe(2);
    const onService = await demoApi(ctx).parcels();
    const field = onService.find((p) => p.properties.name === 'Typed field')!;
    const vertices = field.geometry.coordinates[0]!.slice(0, -1).map(([lon, lat]) => `${lon},${lat}`).sort();
    expect(vertices).toEqual(modified.map(([lon, lat]) => `${lon},${lat}`).sort());
    expect(field.properties.hectares).toBeCloseTo(expectedModified, 2);
    const pt = onService.find((p) => p.properties.name === 'Typed point')!;
    expect(pt.properties.hectares).toBeCloseTo(5, 6);
    const xs = pt.geometry.coordinates[0]!.map((c) => c[0]!);
    const ys = pt.geometry.coordinates[0]!.map((c) => c[1]!);
    expect((Math.min(...xs) + Math.max(...xs)) / 2).toBeCloseTo(point[0], 5);
    expect((Math.min(...ys) + Math.max(...ys)) / 2).toBeCloseTo(point[1], 5);
    expect(await problems()).toEqual([]);
  }, 180_000);
});
