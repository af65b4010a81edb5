// The map's layers kept by the host (core/api-layers.ts): the world backdrop alone at first (with the XYZ basemap a
// computer chose before layers existed), the list saved kept across a restart, what the rules refuse refused with
// the last list kept; and a WMTS/WMS capabilities document fetched by the host from a server on 127.0.0.1, with its
// failures in words (source_unavailable).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostWorld, type HostWorld } from '../test/helpers/host.ts';
import { RpcCode } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { MapLayer, ViewSettings } from '../core/api.ts';
import { startTileServer } from '../test/helpers/tile-server.ts';

let hw: HostWorld;
let server: Server;
let base = '';
beforeAll(async () => {
  hw = await hostWorld();
  server = createServer((req, res) => {
    if (req.url === '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Capabilities xmlns="http://www.opengis.net/wmts/1.0" version="1.0.0"><Contents/></Capabilities>');
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities' }).end();
    } else if (req.url === '/away') {
      res.writeHead(302, { location: 'http://tiles.example.org/wmts' }).end();
    } else if (req.url === '/html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Login</body></html>');
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<Capabilities>${'x'.repeat(9 * 1024 * 1024)}</Capabilities>`);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await hw?.close();
  await new Promise((r) => server?.close(r));
});

const world: MapLayer = { id: 'world', name: 'World (Natural Earth)', visible: true, opacity: 1, source: { kind: 'world' }, attribution: 'Made with Natural Earth' };
const ortho: MapLayer = { id: 'ortho', name: 'PNOA orthophoto', visible: true, opacity: 0.8, source: { kind: 'wms', url: 'https://www.ign.es/wms-inspire/pnoa-ma', layers: 'OI.OrthoimageCoverage', format: 'image/jpeg' } };

describe("the map's layers", () => {
  it('are the world backdrop at first, and the last list saved after the host restarts', async () => {
    const { h, home } = await hw.connected();
    expect(await h.api.layers({})).toEqual({ layers: [world] });
    const osm: MapLayer = { id: 'osm', name: 'OpenStreetMap', visible: false, opacity: 1, source: { kind: 'xyz', url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' }, attribution: '© OpenStreetMap contributors' };
    await h.api.saveLayers({ layers: [world, osm, ortho] });
    await h.close();
    const again = await hw.host(home);
    expect((await again.api.layers({})).layers).toEqual([world, osm, ortho]);
    await again.close();
  }, 60_000);

  it("take the XYZ basemap chosen before layers existed, shown above the backdrop", async () => {
    const { h, acc } = await hw.connected();
    const view: ViewSettings = { account: acc, farm: null, colourBy: 'state', filter: {}, plants: false, basemap: 'http://127.0.0.1:9/{z}/{x}/{y}.png' };
    await h.api.saveViewSettings(view);
    expect((await h.api.layers({})).layers).toEqual([world, { id: 'basemap', name: 'Basemap', visible: true, opacity: 1, source: { kind: 'xyz', url: view.basemap } }]);
    await h.close();
  }, 60_000);

  it('refuses what the rules refuse, keeping the last list', async () => {
    const { h, home } = await hw.connected();
    await h.api.saveLayers({ layers: [world, ortho] });
    const refused = async (layers: unknown[], message: RegExp) =>
      expect(h.api.saveLayers({ layers: layers as MapLayer[] })).rejects.toMatchObject({ code: RpcCode.invalidArguments, message: expect.stringMatching(message) });
    await refused([ortho], /world backdrop once/);
    await refused([world, world], /Two layers have the id world/);
    await refused([world, { ...ortho, source: { ...ortho.source, url: 'http://wms.example.org/wms' } }], /^PNOA orthophoto: Plain http:\/\/ is accepted only from this computer/);
    await refused([world, { ...ortho, source: { ...ortho.source, url: 'https://user:secret@wms.example.org/wms' } }], /user name or password/);
    await refused([world, { id: 'x', name: 'Tiles', visible: true, opacity: 1, source: { kind: 'xyz', url: 'https://t.example.org/{z}/{x}.png' } }], /needs \{y\}/);
    await refused([world, { ...ortho, opacity: 1.5 }], /./);
    await refused([world, { ...ortho, id: '../etc' }], /./);
    await refused([world, { ...ortho, path: '/etc/passwd' }], /./);
    await refused([world, ...Array.from({ length: 40 }, (_, i) => ({ ...ortho, id: `o${i}` }))], /./);
    // A file layer whose file the host does not keep; one it keeps is taken.
    const file = { id: 'f', name: 'Orthophoto 2024', visible: true, opacity: 1, source: { kind: 'file', file: 'a'.repeat(32), format: 'geotiff' } };
    await refused([world, file], /its file is no longer kept here/);
    expect((await h.api.layers({})).layers).toEqual([world, ortho]);
    mkdirSync(join(home, 'layers'), { recursive: true });
    writeFileSync(join(home, 'layers', `${'a'.repeat(32)}.tif`), '');
    await h.api.saveLayers({ layers: [world, file as MapLayer] });
    expect((await h.api.layers({})).layers).toEqual([world, file]);
    await h.close();
  }, 60_000);

  it('fetches a capabilities document on the host, following redirects only to addresses the rules accept', async () => {
    const { h } = await hw.connected();
    expect(await h.api.onlineCapabilities({ url: `${base}/moved` })).toEqual({ url: `${base}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities`, text: expect.stringContaining('<Capabilities'), stale: false });
    const failed = (path: string, message: RegExp) => expect(h.api.onlineCapabilities({ url: path.includes('://') ? path : `${base}${path}` }))
      .rejects.toMatchObject({ code: ApiErrorCode.sourceUnavailable, message: expect.stringMatching(message) });
    await failed('/away', /sent the request on to tiles\.example\.org, which the app does not follow: Plain http/);
    await failed('/html', /did not answer with a WMTS or WMS capabilities document/);
    await failed('/nothing', /answered 404/);
    await failed('/huge', /at most 8 MB/);
    await failed('http://wms.example.org/wms', /Plain http:\/\/ is accepted only from this computer/);
    await failed('file:///etc/passwd', /must start with https:\/\//);
    // Nothing listening: offline, in words.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await failed(`http://127.0.0.1:${port}/wmts`, /cannot be reached \(offline, or the address is wrong\)/);
    // A document read once is answered offline from the copy kept, marked stale; an error answer is not covered up.
    const caps = `${base}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities`;
    const fresh = await h.api.onlineCapabilities({ url: caps });
    await new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
    expect(await h.api.onlineCapabilities({ url: caps })).toEqual({ ...fresh, stale: true });
    await h.close();
  }, 60_000);

  it("probe one tile of an online layer: a tile, none beyond the server's coverage, failed with why when the server errs or is gone", async () => {
    const tiles = await startTileServer();
    const { h } = await hw.connected();
    const xyz: MapLayer = { id: 'local', name: 'Local tiles', visible: true, opacity: 1, source: { kind: 'xyz', url: tiles.xyz } };
    const wms: MapLayer = { id: 'local-wms', name: 'Local WMS', visible: true, opacity: 1, source: { kind: 'wms', url: tiles.wms, layers: 'ortho', format: 'image/png' } };
    await h.api.saveLayers({ layers: [world, xyz, wms] });
    expect(await h.api.layerProbe({ layer: 'local', z: 3, x: 1, y: 2 })).toEqual({ answer: 'tile', why: null });
    expect(await h.api.layerProbe({ layer: 'local-wms', z: 3, x: 1, y: 2 })).toEqual({ answer: 'tile', why: null });
    tiles.missing.add('/xyz/3/1/3.png');
    expect(await h.api.layerProbe({ layer: 'local', z: 3, x: 1, y: 3 })).toEqual({ answer: 'none', why: null });
    tiles.fault('/xyz/3/1/2.png', { kind: 'status', status: 500, times: 1 });
    expect(await h.api.layerProbe({ layer: 'local', z: 3, x: 1, y: 2 })).toEqual({ answer: 'failed', why: expect.stringMatching(/answered 500$/) });
    await expect(h.api.layerProbe({ layer: 'local', z: 3, x: 8, y: 2 })).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    await expect(h.api.layerProbe({ layer: 'nothing', z: 3, x: 1, y: 2 })).rejects.toMatchObject({ code: ApiErrorCode.notFound });
    await tiles.close();
    expect(await h.api.layerProbe({ layer: 'local', z: 3, x: 1, y: 2 })).toEqual({ answer: 'failed', why: expect.stringMatching(/could not be reached$/) });
    await h.close();
  }, 60_000);
});
