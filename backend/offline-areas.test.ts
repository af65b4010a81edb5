// An online layer's area made available offline by a real mirror host process, from tile servers on 127.0.0.1:
// counted and estimated first; downloaded through 429s with Retry-After, 500s, a reset and a slow tile, an empty tile
// recorded; the file complete, checked against what the server served, and set as the layer's area; XYZ, WMS and
// WMTS (REST and KVP; a WGS84 matrix set refused in words); the tile cap refusing with what to change; an update
// replacing the file, a delete removing it; the page's saveLayers keeping the host's areas. And the page's tiles read
// back through its session's bytes path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { launchHost, type Host } from './launch.ts';
import { Backend } from './backend.ts';
import { ByteResources } from './bytes.ts';
import { inProcess, RpcCode } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { Api, MapLayer } from '../core/api.ts';
import type { OfflineRequest } from '../core/api-offline.ts';
import { parseBytesPath } from '../core/bytes-protocol.ts';
import { countTiles, tilesOf, withMargin } from '../core/tiles/tile-math.ts';
import { MbtilesReader } from '../db/mbtiles.ts';
import { startTileServer, type TileServer } from '../test/helpers/tile-server.ts';
import { ACC, layerFiles, newHome, tempRoot, tileCount, tileOf, world, xyzLayer } from './offline-areas.test-helpers.ts';

let root: string;
let ts: TileServer;
const hosts: Host[] = [];
const servers: TileServer[] = [];
const host = async (home: string, env: NodeJS.ProcessEnv = {}) => {
  const h = await launchHost({ home, env });
  hosts.push(h);
  return h;
};
beforeAll(async () => {
  root = tempRoot();
  ts = await startTileServer({ tile: tileOf });
});
afterAll(async () => {
  for (const h of hosts) await h.close();
  for (const s of [ts, ...servers]) await s?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const box: [number, number, number, number] = [13.40, 52.51, 13.41, 52.515];

describe('an area of an online layer', () => {
  it("is counted and its size estimated from real tiles: the account's farms, one farm, a box", async () => {
    const { home, north, empty } = newHome(root);
    const h = await host(home);
    await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
    const farms = await h.api.offlineEstimate({ layer: 'ortho', area: { kind: 'farms', account: ACC, margin: 100 }, minZoom: 12, maxZoom: 16 });
    // Each farm's box with the margin; the mirror's farm boxes are its parcels' (the host's own reading of them).
    const b = (await h.api.farmExtent({ farm: north }))!;
    expect(farms.tiles).toBeGreaterThan(countTiles([withMargin(b, 100)], 12, 16));
    expect(farms).toMatchObject({ cap: 100_000, problem: null, sampleProblem: null, sampled: expect.any(Number) });
    expect(farms.sampled).toBeGreaterThanOrEqual(3);
    // Every tile of this server is 16×16 pixels of about the same size.
    const one = tileOf(14, 8800, 5370).length;
    expect(farms.bytesEstimate).toBeGreaterThan(farms.tiles * one * 0.8);
    expect(farms.bytesEstimate).toBeLessThan(farms.tiles * one * 1.2);
    expect((await h.api.offlineEstimate({ layer: 'ortho', area: { kind: 'farm', farm: north }, minZoom: 12, maxZoom: 16 })).tiles)
      .toBe(countTiles([withMargin(b, 250)], 12, 16));
    expect((await h.api.offlineEstimate({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 17 })).tiles).toBe(countTiles([box], 15, 17));

    const refused = (req: Partial<OfflineRequest>, code: string, message: RegExp) =>
      expect(h.api.offlineEstimate({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 17, ...req } as OfflineRequest)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    await refused({ area: { kind: 'farm', farm: empty } }, RpcCode.invalidArguments, /^Empty has no parcels yet: draw the area on the map instead\.$/);
    await refused({ area: { kind: 'box', bbox: [13.41, 52.51, 13.40, 52.515] } }, RpcCode.invalidArguments, /west edge west of its east edge/);
    await refused({ minZoom: 17, maxZoom: 15 }, RpcCode.invalidArguments, /choose the lower first/);
    await refused({ maxZoom: 23 }, RpcCode.invalidArguments, /./);
    await refused({ layer: 'gone' }, ApiErrorCode.notFound, /No layer gone/);
    await refused({ layer: 'world' }, RpcCode.invalidArguments, /not an online layer/);
    await refused({ area: { kind: 'farms', account: 'acc-nobody' } }, ApiErrorCode.noAccount, /./);
  }, 60_000);

  it('is refused beyond the tile cap, saying which zooms fit; a bad cap setting names itself', async () => {
    const { home } = newHome(root);
    const h = await host(home, { FURROW_OFFLINE_MAX_TILES: '100' });
    await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
    const req: OfflineRequest = { layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 14, maxZoom: 19 };
    const before = ts.count();
    const e = await h.api.offlineEstimate(req);
    expect(e).toMatchObject({ tiles: countTiles([box], 14, 19), cap: 100, bytesEstimate: null, sampled: 0 });
    expect(e.problem).toMatch(/^The area at zooms 14–19 is [\d,]+ tiles: at most 100 are downloaded at once \(the setting FURROW_OFFLINE_MAX_TILES\)\. Choose zooms 14–18 \(\d+ tiles\), or a smaller area\.$/);
    await expect(h.api.offlineDownload(req)).rejects.toMatchObject({ code: ApiErrorCode.tooLarge, message: e.problem, details: { tiles: e.tiles, cap: 100 } });
    // Nothing was fetched, nothing written.
    expect(ts.count()).toBe(before);
    expect(layerFiles(home)).toEqual([]);

    const bad = await host(newHome(root).home, { FURROW_OFFLINE_MAX_TILES: 'lots' });
    await bad.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
    await expect(bad.api.offlineEstimate(req)).rejects.toMatchObject({ code: ApiErrorCode.badSetting, details: { variable: 'FURROW_OFFLINE_MAX_TILES' } });
  }, 60_000);

  it('downloads through 429s, 500s, a reset and a slow tile, keeps the empty tile as such, and becomes the layer\'s area', async () => {
    const { home } = newHome(root);
    const h = await host(home);
    // A server of its own: its counts are this download's alone.
    const ts = await startTileServer({ tile: tileOf });
    servers.push(ts);
    await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
    const tiles = [...tilesOf([box], 15, 17)];
    const path = (i: number) => `/xyz/${tiles[i]!.z}/${tiles[i]!.x}/${tiles[i]!.y}.png`;
    ts.fault(path(1), { kind: 'status', status: 429, retryAfter: '1', times: 1 });
    ts.fault(path(2), { kind: 'status', status: 500, times: 2 });
    ts.fault(path(3), { kind: 'reset', times: 1 });
    ts.fault(path(4), { kind: 'slow', ms: 1500, times: 1 });
    ts.fault(path(5), { kind: 'status', status: 503, times: 1 });
    ts.missing.add(path(6));
    const seen: number[] = [];
    const t0 = Date.now();
    const r = await h.api.offlineDownload({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 17 }, { onProgress: (p) => seen.push(p.done) });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000); // the Retry-After, waited out
    expect(r).toMatchObject({ done: tiles.length, total: tiles.length, failed: 0, offline: { bbox: box, minZoom: 15, maxZoom: 17, tiles: tiles.length - 1, updated: expect.any(String) } });
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(tiles.length);
    expect(ts.requests.get(path(1))).toBe(2);
    expect(ts.requests.get(path(2))).toBe(3);
    expect(ts.requests.get(path(3))).toBe(2);
    expect(ts.requests.get(path(4))).toBe(1);
    expect(ts.requests.get(path(6))).toBe(1);

    const file = r.offline!.file;
    expect(layerFiles(home)).toEqual([`${file}.mbtiles`]);
    expect((await h.api.layers({})).layers[1]).toEqual({ ...xyzLayer(ts.xyz), offline: r.offline });
    const reader = new MbtilesReader(join(home, 'layers', `${file}.mbtiles`));
    for (const [i, t] of tiles.entries()) expect(reader.tile(t.z, t.x, t.y) ?? null, `tile ${i}`).toEqual(i === 6 ? null : tileOf(t.z, t.x, t.y));
    expect(reader.meta()).toMatchObject({ name: 'Orthophoto', attribution: '© Test tiles', type: 'png' });
    reader.close();
    expect(await h.api.offlineDownloads({})).toEqual([]);
    // The page's tile paths are a page session's: the command line is refused them.
    await expect(h.api.offlineTiles({ layer: 'ortho' })).rejects.toMatchObject({ code: RpcCode.forbidden });

    // Updated: a new file, complete, replaces the old one only then; deleted: gone, and the layer without it.
    const again = await h.api.offlineDownload({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 16 });
    expect(again.offline!.file).not.toBe(file);
    expect(layerFiles(home)).toEqual([`${again.offline!.file}.mbtiles`]);
    // The tile still missing at the server (among zooms 15–16's) is still not stored.
    const upTo16 = countTiles([box], 15, 16);
    expect(upTo16).toBeGreaterThan(6);
    expect(tileCount(join(home, 'layers', `${again.offline!.file}.mbtiles`))).toBe(upTo16 - 1);
    // Updated in one click: the same area and zooms, into a new file.
    const updated = await h.api.offlineUpdate({ layer: 'ortho' });
    expect(updated.offline).toMatchObject({ bbox: box, minZoom: 15, maxZoom: 16, tiles: upTo16 - 1 });
    expect(updated.offline!.file).not.toBe(again.offline!.file);
    expect(layerFiles(home)).toEqual([`${updated.offline!.file}.mbtiles`]);
    await h.api.offlineDelete({ layer: 'ortho' });
    expect(layerFiles(home)).toEqual([]);
    expect((await h.api.layers({})).layers[1]).toEqual(xyzLayer(ts.xyz));
    await h.api.offlineDelete({ layer: 'ortho' });
    await expect(h.api.offlineUpdate({ layer: 'ortho' })).rejects.toMatchObject({ code: ApiErrorCode.notFound, message: 'Orthophoto has no area kept offline to update: choose one.' });
  }, 90_000);

  it("is the host's to set: a saved list keeps it, a layer removed or given another source loses it and its file", async () => {
    const { home } = newHome(root);
    const h = await host(home);
    const layer = xyzLayer(ts.xyz);
    await h.api.saveLayers({ layers: [world, layer] });
    const { offline } = await h.api.offlineDownload({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 15 });
    // The page's copy read before the download completed, or one naming another file, changes nothing.
    await h.api.saveLayers({ layers: [world, { ...layer, opacity: 0.5 }] });
    await h.api.saveLayers({ layers: [world, { ...layer, opacity: 0.5, offline: { ...offline!, file: 'b'.repeat(32) } }] });
    expect((await h.api.layers({})).layers[1]).toEqual({ ...layer, opacity: 0.5, offline });
    await h.api.saveLayers({ layers: [world, { ...layer, source: { kind: 'xyz', url: `${ts.base}/other/{z}/{x}/{y}.png` } }] });
    expect((await h.api.layers({})).layers[1]!.offline).toBeUndefined();
    expect(layerFiles(home)).toEqual([]);
    await h.api.saveLayers({ layers: [world, layer] });
    await h.api.offlineDownload({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 15 });
    expect(layerFiles(home)).toHaveLength(1);
    await h.api.saveLayers({ layers: [world] });
    expect(layerFiles(home)).toEqual([]);
  }, 60_000);

  it('downloads WMS tiles by their EPSG:3857 boxes and WMTS tiles by REST template or KVP; a WGS84 set is refused', async () => {
    const { home } = newHome(root);
    const h = await host(home);
    const wms: MapLayer = { id: 'wms', name: 'WMS ortho', visible: true, opacity: 1, source: { kind: 'wms', url: `${ts.wms}?map=ortho`, layers: 'OI.Ortho', format: 'image/png' } };
    const wmts = (id: string, layer: string, matrixSet: string): MapLayer => ({ id, name: `WMTS ${layer}`, visible: true, opacity: 1, source: { kind: 'wmts', capabilities: ts.wmts, layer, matrixSet } });
    await h.api.saveLayers({ layers: [world, wms, wmts('rest', 'ortho', 'GoogleMapsCompatible'), wmts('kvp', 'kvp', 'GoogleMapsCompatible'), wmts('geo', 'geo', 'WGS84')] });
    const tiles = [...tilesOf([box], 15, 16)];
    for (const id of ['wms', 'rest', 'kvp']) {
      const r = await h.api.offlineDownload({ layer: id, area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 16 });
      expect(r, id).toMatchObject({ done: tiles.length, failed: 0, offline: { tiles: tiles.length } });
      // Each stored tile is the one the server drew for that place: the addresses were the tiles' own.
      const reader = new MbtilesReader(join(home, 'layers', `${r.offline!.file}.mbtiles`));
      for (const t of tiles) expect(reader.tile(t.z, t.x, t.y), `${id} ${t.z}/${t.x}/${t.y}`).toEqual(tileOf(t.z, t.x, t.y));
      reader.close();
    }
    const getMap = [...ts.requests.keys()].find((k) => k.startsWith('/wms?'))!;
    expect(Object.fromEntries(new URL(getMap, 'http://x').searchParams)).toMatchObject({ map: 'ortho', SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetMap', CRS: 'EPSG:3857', WIDTH: '256', HEIGHT: '256', LAYERS: 'OI.Ortho', STYLES: '' });
    expect([...ts.requests.keys()].some((k) => k.startsWith('/wmts/rest/ortho/normal/GoogleMapsCompatible/16/'))).toBe(true);
    expect([...ts.requests.keys()].some((k) => k.startsWith('/wmts/kvp?') && k.includes('LAYER=kvp'))).toBe(true);
    await expect(h.api.offlineEstimate({ layer: 'geo', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 16 }))
      .rejects.toMatchObject({ code: ApiErrorCode.sourceUnavailable, message: expect.stringMatching(/^The WMTS tile matrix set WGS84 is in urn:ogc:def:crs:EPSG::4326: only Web Mercator sets/) });
    await expect(h.api.offlineEstimate({ layer: 'rest', area: { kind: 'box', bbox: box }, minZoom: 17, maxZoom: 20 }))
      .rejects.toMatchObject({ code: RpcCode.invalidArguments, message: 'WMTS ortho has no tiles at zooms 19, 20: its zooms are 0–18.' });
  }, 90_000);

  it("says when no sample tile can be read, and the page reads the area's tiles at its session's bytes path", async () => {
    const { home } = newHome(root);
    const h = await host(home);
    const gone = await startTileServer({ tile: tileOf });
    const url = gone.xyz;
    await gone.close();
    await h.api.saveLayers({ layers: [world, xyzLayer(url, 'gone'), xyzLayer(ts.xyz)] });
    expect(await h.api.offlineEstimate({ layer: 'gone', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 15 }))
      .toMatchObject({ bytesEstimate: null, sampled: 0, problem: null, sampleProblem: expect.stringMatching(/^No tile could be read to estimate the size: 127\.0\.0\.1:\d+ could not be reached/) });
    const { offline } = await h.api.offlineDownload({ layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 16 });
    await h.close();

    // A page session, in process: its template, filled in, leads to the tile; another session's key to nothing.
    const backend = new Backend({ home });
    const bytes = new ByteResources(join(root, `exports-${Date.now()}`));
    try {
      const session = bytes.session();
      const page = inProcess<Api>({ ...backend.handlers, ...backend.offline.tileHandlers(session) });
      const { template } = (await page.offlineTiles({ layer: 'ortho' }))!;
      expect(template).toMatch(/^\/bytes\/[A-Za-z0-9_-]{43}\/[0-9a-f]{32}\/\{z\}-\{x\}-\{y\}$/);
      expect((await page.offlineTiles({ layer: 'ortho' }))!.template).toBe(template);
      expect(await page.offlineTiles({ layer: 'gone' })).toBeNull();
      const t = [...tilesOf([box], 16, 16)][0]!;
      const at = (z: number, x: number, y: number) => parseBytesPath(template.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y)))!;
      const opened = await bytes.open(at(t.z, t.x, t.y));
      expect(opened).toMatchObject({ data: tileOf(t.z, t.x, t.y), meta: { type: 'image/png', download: false, size: tileOf(t.z, t.x, t.y).length, etag: `"${offline!.file}-${t.z}-${t.x}-${t.y}"` } });
      expect(await bytes.open(at(3, 0, 0))).toBeNull();
      expect(await bytes.open({ ...at(t.z, t.x, t.y), name: '../../mirror.db' })).toBeNull();
      expect(await bytes.open({ ...at(t.z, t.x, t.y), key: bytes.session().key })).toBeNull();
      session.close();
      expect(await bytes.open(at(t.z, t.x, t.y))).toBeNull();
    } finally {
      bytes.close();
      backend.close();
    }
  }, 60_000);
});
