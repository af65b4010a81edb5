// The map's layers in the app (issue 30), end to end (`npm start`'s launcher with the embedded demo service, the real
// host, Debian's Chromium), against tile servers this test runs on 127.0.0.1 — each source a colour of its own, so a
// screenshot tells which drew where: the offline world backdrop under a zoomed-out map, hidden and shown again; an XYZ
// source refused from another computer over http, then added, its opacity changed; a WMS and a WMTS service added from
// their capabilities (read by the host), the WMS one with its service's legend; the order changed; the servers stopped (said once, the map goes on); and the
// same layers, in the same order, after the app is restarted — the WMTS layer from the capabilities the host kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { decodePng, openApp, startApp, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { solidPng } from '../helpers/png.ts';

const COLOURS = { xyz: '#d81b60', wms: '#1e88e5', wmts: '#fb8c00', land: '#f5f3ea' } as const;

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;
/** A blank page of its own that counts a screenshot's pixels (the app's page policy refuses data: images). */
let tiles: Server;
let base = '';
const asked = { xyz: 0, wms: 0, wmts: 0 };

function wmtsCapabilities(): string {
  const matrices = Array.from({ length: 20 }, (_, z) => `<TileMatrix><ows:Identifier>${z}</ows:Identifier><ScaleDenominator>${559082264.0287178 / 2 ** z}</ScaleDenominator>`
    + `<TopLeftCorner>-20037508.3427892 20037508.3427892</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight><MatrixWidth>${2 ** z}</MatrixWidth><MatrixHeight>${2 ** z}</MatrixHeight></TileMatrix>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.0.0">`
    + '<ows:ServiceIdentification><ows:Title>Test WMTS</ows:Title><ows:ServiceType>OGC WMTS</ows:ServiceType><ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion></ows:ServiceIdentification>'
    + '<Contents><Layer><ows:Title>Shaded relief</ows:Title><ows:Identifier>relief</ows:Identifier><Style isDefault="true"><ows:Identifier>default</ows:Identifier></Style><Format>image/png</Format>'
    + '<TileMatrixSetLink><TileMatrixSet>GoogleMapsCompatible</TileMatrixSet></TileMatrixSetLink>'
    + `<ResourceURL format="image/png" resourceType="tile" template="${base}/wmts/tiles/{TileMatrix}/{TileRow}/{TileCol}.png"/></Layer>`
    + `<TileMatrixSet><ows:Identifier>GoogleMapsCompatible</ows:Identifier><ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>${matrices}</TileMatrixSet></Contents></Capabilities>`;
}

const WMS_CAPABILITIES = '<?xml version="1.0" encoding="UTF-8"?><WMS_Capabilities version="1.3.0" xmlns="http://www.opengis.net/wms"><Service><Name>WMS</Name><Title>Test WMS</Title></Service>'
  + '<Capability><Request><GetMap><Format>image/png</Format><Format>image/jpeg</Format></GetMap></Request><Layer><Title>Root</Title><CRS>EPSG:3857</CRS>'
  + '<Layer queryable="0"><Name>ortho</Name><Title>Test orthophoto</Title><CRS>EPSG:3857</CRS></Layer></Layer></Capability></WMS_Capabilities>';

beforeAll(async () => {
  tiles = createServer((req, res) => {
    const url = new URL(req.url!, base);
    const png = (hex: string, size = 1) => { res.writeHead(200, { 'content-type': 'image/png' }); res.end(solidPng(hex, size)); };
    if (url.pathname.startsWith('/xyz/')) {
      asked.xyz++;
      // A server covering part of the view: every fourth column of tiles is beyond it, its 404 the last to come.
      const x = Number(url.pathname.split('/')[3]);
      if (x % 4 === 3) return void setTimeout(() => res.writeHead(404).end(), 300);
      return png(COLOURS.xyz);
    }
    if (url.pathname.startsWith('/wmts/tiles/')) { asked.wmts++; return png(COLOURS.wmts); }
    if (url.pathname === '/wmts/caps.xml') { res.writeHead(200, { 'content-type': 'application/xml' }); return res.end(wmtsCapabilities()); }
    if (url.pathname === '/wms' && url.searchParams.get('REQUEST') === 'GetCapabilities') { res.writeHead(200, { 'content-type': 'text/xml' }); return res.end(WMS_CAPABILITIES); }
    if (url.pathname === '/wms' && url.searchParams.get('REQUEST') === 'GetLegendGraphic' && url.searchParams.get('LAYER') === 'ortho') return png('#333333', 20);
    if (url.pathname === '/wms' && url.searchParams.get('REQUEST') === 'GetMap' && url.searchParams.get('LAYERS') === 'ortho') { asked.wms++; return png(COLOURS.wms); }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => tiles.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
  ctx = await startDemoApp('furrow-app-layers-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
  if (tiles?.listening) await new Promise((r) => { tiles.closeAllConnections(); tiles.close(r); });
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const panel = () => page.getByRole('dialog', { name: 'Layers' });
const form = () => panel().getByRole('form', { name: 'Add an online layer' });
const listed = () => panel().getByRole('list', { name: 'Map layers, top first' }).locator('.layer-name').allTextContents();

/** The share of the map's pixels within 6 of `hex` in each channel (the side panel and header left out), counted by Chromium. */
async function share(hex: string): Promise<number> {
  const map = (await page.locator('.map').boundingBox())!;
  const png = await page.screenshot({ clip: { x: map.x + 60, y: map.y + 30, width: map.width - 120, height: map.height - 60 } });
  const { data } = decodePng(png);
  const [r, gr, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i]! - r) <= 6 && Math.abs(data[i + 1]! - gr) <= 6 && Math.abs(data[i + 2]! - b) <= 6) n++;
  return n / (data.length / 4);
}

async function addOnline(kind: 'XYZ tiles' | 'WMS' | 'WMTS', url: string, layer?: string): Promise<void> {
  await form().getByLabel('Kind').selectOption({ label: kind });
  await form().getByRole('textbox', { name: /address/ }).fill(url);
  if (layer) {
    await form().getByRole('button', { name: 'Read its layers' }).click();
    await poll(() => form().getByLabel('Layer', { exact: true }).locator('option:checked').textContent()).toBe(layer);
  }
  await form().getByRole('button', { name: 'Add layer' }).click();
}

describe("the map's layers", () => {
  it('draws the offline world backdrop under a zoomed-out map, hidden and shown from the layers panel', async () => {
    await waitOnline(page);
    for (let i = 0; i < 8; i++) await page.getByRole('button', { name: 'Zoom out' }).click();
    await poll(() => share(COLOURS.land)).toBeGreaterThan(0.2);
    await page.screenshot({ path: join(SHOTS, 'app-layers-world.png') });
    // B opens the panel, focus inside; the backdrop listed with its legend entry.
    await page.locator('.top h1').click();
    await page.keyboard.press('b');
    await poll(() => panel().count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.closest('[role=dialog]')?.getAttribute('aria-labelledby') !== null)).toBe(true);
    expect(await listed()).toEqual([' World (Natural Earth)']);
    expect(await panel().locator('.layer-legend').first().textContent()).toBe('Natural Earth land, coastlines and borders, always offline');
    expect(await panel().getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await panel().getByRole('checkbox', { name: 'World (Natural Earth)' }).uncheck();
    await poll(() => share(COLOURS.land)).toBeLessThan(0.01);
    await panel().getByRole('checkbox', { name: 'World (Natural Earth)' }).check();
    await poll(() => share(COLOURS.land)).toBeGreaterThan(0.2);
  }, 120_000);

  it('adds XYZ, WMS and WMTS sources, changes opacity and order, and says once when their servers are gone', async () => {
    // Plain http from another computer is refused with what to type; from this computer it is drawn.
    await addOnline('XYZ tiles', 'http://tiles.example.org/{z}/{x}/{y}.png');
    expect(await form().getByRole('alert').textContent()).toMatch(/only from this computer/);
    await addOnline('XYZ tiles', `${base}/xyz/{z}/{x}/{y}.png`);
    await poll(() => share(COLOURS.xyz)).toBeGreaterThan(0.3); // three columns of four
    expect(asked.xyz).toBeGreaterThan(0);
    // Its 404s beyond its coverage, ending after the tiles that drew, are no server down.
    await page.waitForTimeout(800);
    expect(await panel().locator('.layer.failing').count()).toBe(0);
    expect(await page.locator('.statusbar .message').textContent()).toMatch(/^Added the layer XYZ tiles from 127\.0\.0\.1:\d+, on top of the others\.$/);
    // Half opacity: the colour blends with what is under it.
    const name = (await listed())[0]!.trim();
    await panel().getByRole('slider', { name: `Opacity of ${name}` }).fill('50');
    await poll(() => share(COLOURS.xyz)).toBeLessThan(0.01);
    await panel().getByRole('slider', { name: `Opacity of ${name}` }).fill('100');

    // A credit given is shown on the map, as providers' terms ask, not only in the panel.
    await form().getByRole('textbox', { name: 'Credit' }).fill('© Test orthophoto service');
    await addOnline('WMS', `${base}/wms`, 'Test orthophoto (ortho)');
    await poll(() => page.locator('.map .ol-attribution').textContent()).toContain('© Test orthophoto service');
    await poll(() => share(COLOURS.wms)).toBeGreaterThan(0.5);
    expect(await share(COLOURS.xyz)).toBeLessThan(0.01);
    // Its legend entry shows the service's own legend (GetLegendGraphic).
    await poll(() => panel().getByRole('img', { name: /^Legend of Test orthophoto/ }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(20);
    await addOnline('WMTS', `${base}/wmts/caps.xml`, 'Shaded relief (relief)');
    expect(await form().getByLabel('Tile matrix set').count()).toBe(0); // the form reset after adding
    await poll(() => share(COLOURS.wmts)).toBeGreaterThan(0.5);
    expect(await listed()).toEqual([` Shaded relief (127.0.0.1:${new URL(base).port})`, ` Test orthophoto (127.0.0.1:${new URL(base).port})`, ` ${name}`, ' World (Natural Earth)']);
    await page.screenshot({ path: join(SHOTS, 'app-layers.png') });

    // The WMTS layer moved down twice, then the XYZ one up to the top: drawn over the others.
    const port = new URL(base).port;
    const relief = `Shaded relief (127.0.0.1:${port})`;
    expect(await panel().getByRole('button', { name: `Move ${relief} up` }).isDisabled()).toBe(true);
    await panel().getByRole('button', { name: `Move ${relief} down` }).click();
    await panel().getByRole('button', { name: `Move ${relief} down` }).click();
    await poll(() => share(COLOURS.wms)).toBeGreaterThan(0.5);
    await panel().getByRole('button', { name: `Move ${name} up` }).click();
    await poll(() => share(COLOURS.xyz)).toBeGreaterThan(0.3);
    expect(await listed()).toEqual([` ${name}`, ` Test orthophoto (127.0.0.1:${port})`, ` ${relief}`, ' World (Natural Earth)']);

    // Esc closes it, the focus back on its button.
    await page.keyboard.press('Escape');
    await poll(() => panel().count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Layers');

    // The servers gone: said once on the status line, the hint by the button; the map goes on.
    await new Promise((r) => { tiles.closeAllConnections(); tiles.close(r); });
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await poll(() => page.getByRole('status', { name: 'Layers status' }).textContent()).toBe('3 layers are unavailable: the map works without them');
    // Whichever layer is told first: a tile's fetch, or a WMTS layer's capabilities read again; one full stop either way (CI had "..").
    expect(await page.locator('.statusbar .message').textContent()).toMatch(/: its tiles cannot be loaded: 127\.0\.0\.1:\d+ (could not be reached|cannot be reached \(offline, or the address is wrong\))\. The map goes on without it\.$/);
    expect(await problems()).toEqual([]);
  }, 120_000);

  it('keeps the layers, their order and opacity across a restart; the WMTS layer from the capabilities the host kept', async () => {
    await page.waitForTimeout(800); // the list's save after its last change
    await page.context().close();
    await ctx.app.stop();
    ctx.app = await startApp({ DATA_DIR: join(ctx.dir, 'data'), FURROW_HOME: join(ctx.dir, 'home'), PORT: new URL(ctx.service).port, HOST: '127.0.0.1' });
    ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
    await waitOnline(page);
    await page.getByRole('button', { name: 'Layers' }).click();
    const port = new URL(base).port;
    await poll(() => listed()).toEqual([` XYZ tiles from 127.0.0.1:${port}`, ` Test orthophoto (127.0.0.1:${port})`, ` Shaded relief (127.0.0.1:${port})`, ' World (Natural Earth)']);
    expect(await panel().getByRole('slider', { name: `Opacity of XYZ tiles from 127.0.0.1:${port}` }).inputValue()).toBe('100');
    // Offline, every source fails; the WMTS one too, yet its layer was made from the kept capabilities (no refusal said).
    await poll(() => panel().locator('.layer.failing').count()).toBeGreaterThanOrEqual(1);
    expect(await panel().locator('.layer-problem').allTextContents()).not.toContain(expect.stringMatching(/cannot be reached/));
    expect(await problems()).toEqual([]);
  }, 120_000);
});
