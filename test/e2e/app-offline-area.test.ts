// An area made available offline in the app (issue 30), end to end (`npm start`'s launcher with the embedded demo
// service, the real host, Debian's Chromium), from an XYZ tile server this test runs on 127.0.0.1 whose every tile is
// one colour: the layer added in the Layers panel; Keep offline… with the account's farms at zooms 13–18, the tile
// count and size shown before the download, then its progress, a pause and a resume; the area listed on the layer; the tile server
// stopped, the app restarted, and the same tiles on the map — from the file, through the page's bytes path; then,
// zoomed in past the area's deepest zoom offline, its deepest tiles scaled up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { decodePng, openApp, startApp, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { solidTile, startTileServer, type TileServer } from '../helpers/tile-server.ts';

/** The tiles' colour: a purple no other layer of the app draws. */
const COLOUR: [number, number, number] = [106, 27, 154];

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;
let ts: TileServer;

beforeAll(async () => {
  const tile = solidTile(COLOUR);
  // Each tile after 3 ms, as a server across a network: the download lasts long enough to pause.
  ts = await startTileServer({ tile: () => tile, delayMs: 3 });
  ctx = await startDemoApp('furrow-app-offline-area-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
  await ts?.close();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const panel = () => page.getByRole('dialog', { name: 'Layers' });

/** The tiles' colour itself. */
const exactly = (d: Uint8Array, i: number) => COLOUR.every((c, k) => Math.abs(d[i + k]! - c) <= 6);
/** The tiles' colour, or it under a parcel's tint (zoomed into a parcel, the whole map is one). */
const purplish = (d: Uint8Array, i: number) => d[i + 2]! - d[i + 1]! > 60 && d[i]! - d[i + 1]! > 30;

/** The share of the map's pixels of the tiles' colour (the map's edges, where controls sit, left out). */
async function share(is = exactly): Promise<number> {
  const map = (await page.locator('.map').boundingBox())!;
  const png = await page.screenshot({ clip: { x: map.x + 220, y: map.y + 60, width: map.width - 280, height: map.height - 120 } });
  const { data } = decodePng(png);
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (is(data, i)) n++;
  return n / (data.length / 4);
}

describe('an area kept offline', () => {
  it('is prepared for the demo farms at zooms, with the count and size first and progress after', async () => {
    await waitOnline(page);
    await page.getByRole('button', { name: 'Layers' }).click();
    const add = panel().getByRole('form', { name: 'Add an online layer' });
    await add.getByLabel('Kind').selectOption({ label: 'XYZ tiles' });
    await add.getByRole('textbox', { name: /address/ }).fill(ts.xyz);
    await add.getByLabel('Name').fill('Purple tiles');
    await add.getByRole('button', { name: 'Add layer' }).click();
    // The tiles under the parcels, which cover part of the farm.
    await poll(() => share()).toBeGreaterThan(0.5);

    const entry = panel().getByRole('group', { name: 'Purple tiles offline' });
    await entry.getByRole('button', { name: 'Keep offline…' }).click();
    const form = entry.getByRole('form', { name: 'Keep Purple tiles offline' });
    expect(await form.getByRole('radio', { name: /^The account's farms, with 250 m around each$/ }).isChecked()).toBe(true);
    await form.getByLabel('From').fill('13');
    await form.getByLabel('to').fill('18');
    const estimate = form.getByRole('status', { name: 'Offline estimate' });
    await poll(() => estimate.textContent()).toMatch(/^[\d,]+ tiles, about [\d.]+ (KB|MB) \(estimated from \d sample tiles\)\.$/);
    const tiles = Number(/^([\d,]+) tiles/.exec((await estimate.textContent())!)![1]!.replace(/,/g, ''));
    expect(await form.textContent()).toContain("OpenStreetMap's own servers among them");
    const before = ts.count();
    await form.getByRole('button', { name: 'Download' }).click();
    // Progress while it runs (the bar, and the tiles in words), then the area on the layer.
    await poll(() => entry.getByRole('status', { name: 'Download of Purple tiles status' }).textContent()).toMatch(/^[\d,]+ of [\d,]+ tiles \(\d+ %\)/);
    await page.screenshot({ path: join(SHOTS, 'app-offline-area-progress.png') });
    // Paused: where it stopped, and Resume goes on from there.
    await entry.getByRole('button', { name: 'Pause' }).click();
    await poll(() => entry.getByRole('status', { name: 'Download of Purple tiles status' }).textContent()).toMatch(/^Paused at [\d,]+ of [\d,]+ tiles\. Resume Cancel$/);
    await entry.getByRole('button', { name: 'Resume' }).click();
    await poll(() => entry.locator('.offline-kept').textContent(), 120_000).toMatch(/^Area kept offline, updated \d+ \w+ \d{4}\. Update Delete$/);
    expect(await panel().locator('.layer-legend').first().textContent()).toContain(`${tiles.toLocaleString('en-US')} tiles kept offline (zoom 13–18)`);
    expect(await page.locator('.statusbar .message').textContent()).toMatch(new RegExp(`^Purple tiles is kept offline: ${tiles.toLocaleString('en-US')} tiles, `));
    expect(ts.count() - before).toBeGreaterThanOrEqual(tiles);
    const files = readdirSync(join(ctx.dir, 'home', 'layers')).filter((f) => f.endsWith('.mbtiles'));
    expect(files).toHaveLength(1);
    await page.screenshot({ path: join(SHOTS, 'app-offline-area.png') });
    expect(await problems()).toEqual([]);
  }, 180_000);

  it('shows the same tiles after the tile server stops and the app restarts', async () => {
    await page.getByRole('button', { name: 'Close the layers panel' }).click();
    const online = await share();
    expect(online).toBeGreaterThan(0.5);
    await page.screenshot({ path: join(SHOTS, 'app-offline-area-online.png') });
    await page.waitForTimeout(800); // the list's save after its last change
    await page.context().close();
    await ts.close();
    await ctx.app.stop();
    ctx.app = await startApp({ DATA_DIR: join(ctx.dir, 'data'), FURROW_HOME: join(ctx.dir, 'home'), PORT: new URL(ctx.service).port, HOST: '127.0.0.1' });
    ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
    await waitOnline(page);
    // The farm the app opens on lies within the area: its tiles come from the file, the server being gone.
    await poll(() => share(), 60_000).toBeGreaterThan(online - 0.02);
    await page.screenshot({ path: join(SHOTS, 'app-offline-area-restarted.png') });
    const requested = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/bytes/')).length);
    expect(requested).toBeGreaterThan(0);
  }, 180_000);

  it("shows the area's deepest tiles scaled up when zoomed in past its zooms, offline", async () => {
    // The layer hidden, and a page of its own: no tile of the layer in OpenLayers' cache, from which it would draw a
    // parent tile by itself (a place of the area first seen zoomed in past it showed nothing at all).
    await page.getByRole('button', { name: 'Layers' }).click();
    await panel().getByRole('checkbox', { name: 'Purple tiles' }).uncheck();
    await page.waitForTimeout(800); // the list's save after its last change
    await page.context().close();
    ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
    await waitOnline(page);
    // From the farm (zoom 17 at most) past the area's zoom 18 and the source's 19: its tiles of zoom 19 are asked for.
    for (let i = 0; i < 6; i++) {
      await page.locator('.ol-zoom-in').click();
      await page.waitForTimeout(300);
    }
    expect(await share(purplish)).toBeLessThan(0.05);
    await page.getByRole('button', { name: 'Layers' }).click();
    await panel().getByRole('checkbox', { name: 'Purple tiles' }).check();
    await page.getByRole('button', { name: 'Close the layers panel' }).click();
    await poll(() => share(purplish)).toBeGreaterThan(0.5);
    await page.screenshot({ path: join(SHOTS, 'app-offline-area-overzoom.png') });
    // Not said to fail: the map shows it.
    expect(await page.locator('.layers-hint').count()).toBe(0);
    expect(await problems()).toEqual([]);
  }, 120_000);
});
