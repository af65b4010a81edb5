// Layer files through a real mirror host process and browser mode's real HTTP server on 127.0.0.1, as a page uses
// them: a page (a WebSocket session with the launch's token) sends files in chunks, gets its bytes paths with
// layerFileSource, and reads them over HTTP — an MBTiles file's tiles by name, a PMTiles archive through the pmtiles
// package's FetchSource and a GeoTIFF through geotiff.js's fromUrl (both by Range, as the page's libraries read them),
// a vector overlay's GeoJSON whole. Its paths outlive the exports' TTL but not its session; another session's key
// gets nothing. A saved layer removed takes its file; a file Electron's dialog chose is redeemed by ticket, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { PMTiles, FetchSource } from 'pmtiles';
import { fromUrl } from 'geotiff';
import { RpcCode } from '../core/rpc.ts';
import { LAYER_FILE_CHOSEN } from '../core/host-protocol.ts';
import { parseBytesPath } from '../core/bytes-protocol.ts';
import { tileOf, uploadChunks } from '../core/layers/layer-files.ts';
import type { LayerFileInfo } from '../core/api-layer-files.ts';
import type { MapLayer } from '../core/api-layers.ts';
import { cog, mbtilesTiles, overlayGeojson, pmtilesFrom, rasterMbtiles, vectorMbtiles } from '../test/helpers/layer-fixtures.ts';
import type { Host } from './launch.ts';
import { startBrowserHost, type BrowserHost, type Tab } from '../test/helpers/browser-host.ts';
import { EMPTY_PNG } from './layer-file-handlers.ts';

const TTL_MS = 1500;
let b: BrowserHost;
let home: string;
let host: Host;
let fx: Record<string, string>;
let get: BrowserHost['get'];
let tab: BrowserHost['tab'];
let url: BrowserHost['url'];

beforeAll(async () => {
  b = await startBrowserHost('furrow-layer-server-', {
    ttlMs: TTL_MS,
    prepare: (_home, d) => {
      const mbr = rasterMbtiles(d, 'ortho', [255, 128, 0]);
      fx = { mbr, mbv: vectorMbtiles(d), pmr: pmtilesFrom(mbr, join(d, 'ortho.pmtiles'), false), tif: cog(d, 'ortofoto', 25830, [200, 50, 200]), geojson: overlayGeojson(d) };
    },
  });
  ({ home, host, get, tab, url } = b);
}, 120_000);
afterAll(async () => {
  await b?.close();
});

type Page = Tab;

/** Sends a file as the page does: its chunks, a few at a time, then the end. */
async function upload(page: Page, file: string, name: string): Promise<LayerFileInfo> {
  const bytes = readFileSync(file);
  const { upload: id } = await page.api.addLayerFileBegin({ name, size: bytes.length });
  await Promise.all(uploadChunks(bytes.length).map((c) => page.api.addLayerFileChunk({ upload: id, offset: c.offset, data: bytes.subarray(c.offset, c.offset + c.length).toString('base64') })));
  return page.api.addLayerFileEnd({ upload: id });
}

const layersDir = () => join(home, 'layers');

describe('layer files over the host', () => {
  it("serves an MBTiles file's tiles by name, a PMTiles archive and a GeoTIFF by range, an overlay whole, to the page that asked", async () => {
    const page = await tab();
    const mbr = await upload(page, fx.mbr!, 'ortho.mbtiles');
    const mbv = await upload(page, fx.mbv!, 'roads.mbtiles');
    const pmr = await upload(page, fx.pmr!, 'ortho.pmtiles');
    const tif = await upload(page, fx.tif!, 'ortofoto.tif');
    const geo = await upload(page, fx.geojson!, 'drains.geojson');
    expect([mbr.format, mbv.format, pmr.format, tif.format, geo.format]).toEqual(['mbtiles-raster', 'mbtiles-vector', 'pmtiles-raster', 'geotiff', 'vector']);

    // MBTiles: a tile path template, each tile as GDAL wrote it (vector ones gunzipped), typed, 404 where none is.
    const r = await page.api.layerFileSource({ file: mbr.file });
    expect(r).toMatchObject({ info: mbr, path: null, proj4: null });
    expect(r.tiles).toMatch(/^\/bytes\/[A-Za-z0-9_-]{43}\/[0-9a-f]{32}\/\{z\}-\{x\}-\{y\}\.png$/);
    for (const t of mbtilesTiles(fx.mbr!)) {
      const got = await get(tileOf(r.tiles!, t.z, t.x, t.y));
      expect([got.status, got.headers['content-type']]).toEqual([200, 'image/png']);
      expect(got.body.equals(t.data)).toBe(true);
    }
    // Where the file has no tile: an empty one (a transparent pixel), no failure; a name that is no tile of it: none.
    const empty = await get(tileOf(r.tiles!, 3, 0, 0));
    expect([empty.status, empty.headers['content-type'], empty.body.equals(EMPTY_PNG)]).toEqual([200, 'image/png', true]);
    expect((await get(tileOf(r.tiles!, 13, 0, 0).replace('.png', '.jpg'))).status).toBe(404);
    expect((await get(tileOf(r.tiles!, 1, 5, 0))).status).toBe(404);
    expect((await get(tileOf(r.tiles!, 13, 0, 0).replace('13-0-0', '13-0'))).status).toBe(404);
    // Asked again: the same resource.
    expect((await page.api.layerFileSource({ file: mbr.file })).tiles).toBe(r.tiles);
    const v = await page.api.layerFileSource({ file: mbv.file });
    const vt = mbtilesTiles(fx.mbv!)[0]!;
    const vector = await get(tileOf(v.tiles!, vt.z, vt.x, vt.y));
    expect([vector.status, vector.headers['content-type'], vector.headers['content-encoding']]).toEqual([200, 'application/x-protobuf', undefined]);
    expect(vector.body.equals(gunzipSync(vt.data))).toBe(true);
    const none = await get(tileOf(v.tiles!, 3, 0, 0));
    expect([none.status, none.headers['content-type'], none.body.length]).toEqual([200, 'application/x-protobuf', 0]);

    // PMTiles: read as the page reads it, the pmtiles package over HTTP ranges.
    const p = await page.api.layerFileSource({ file: pmr.file });
    expect(p).toMatchObject({ tiles: null, path: expect.stringMatching(/\/layer\.pmtiles$/) });
    const archive = new PMTiles(new FetchSource(url(p.path!)));
    expect(await archive.getHeader()).toMatchObject({ minZoom: 13, maxZoom: 15, tileType: 2 });
    for (const t of mbtilesTiles(fx.mbr!).slice(0, 6)) expect(Buffer.from((await archive.getZxy(t.z, t.x, t.y))!.data).equals(t.data)).toBe(true);
    const range = await get(p.path!, { headers: { range: 'bytes=0-126' } });
    expect([range.status, range.headers['content-range'], range.body.subarray(0, 7).toString()]).toEqual([206, `bytes 0-126/${pmr.bytes}`, 'PMTiles']);

    // GeoTIFF: geotiff.js over HTTP ranges, and the CRS's definition to register.
    const g = await page.api.layerFileSource({ file: tif.file });
    expect(g.proj4).toMatch(/^\+proj=utm \+zone=30 /);
    const remote = await fromUrl(url(g.path!));
    const image = await remote.getImage();
    expect([image.getWidth(), image.getGeoKeys()?.ProjectedCSTypeGeoKey]).toEqual([512, 25830]);

    // The overlay: the GeoJSON the host made, whole.
    const o = await page.api.layerFileSource({ file: geo.file });
    const doc = JSON.parse((await get(o.path!)).body.toString('utf8')) as { features: unknown[] };
    expect(doc.features).toHaveLength(4);

    // Another session's key, or a closed session's, leads nowhere; the paths outlive the exports' TTL.
    const other = await tab();
    const [mine, theirs] = [parseBytesPath(o.path!)!, parseBytesPath((await other.api.layerFileSource({ file: geo.file })).path!)!];
    expect(mine.key).not.toBe(theirs.key);
    expect((await get(`/bytes/${theirs.key}/${mine.id}/layer.geojson`)).status).toBe(404);
    await other.close();
    await new Promise((res) => setTimeout(res, TTL_MS + 300));
    expect((await get(o.path!)).status).toBe(200);
    expect((await get(tileOf(r.tiles!, 13, mbtilesTiles(fx.mbr!)[0]!.x, mbtilesTiles(fx.mbr!)[0]!.y))).status).not.toBe(500);
    await page.close();
    await expect.poll(async () => (await get(o.path!)).status, { timeout: 10_000 }).toBe(404);
    // The files stay: they are the host's, not the session's.
    expect(readdirSync(layersDir()).filter((f) => f.endsWith('.json'))).toHaveLength(5);
  }, 120_000);

  it("removes a saved layer's file once the layer is removed, and refuses to remove a file a saved layer uses", async () => {
    const page = await tab();
    const info = await upload(page, fx.geojson!, 'drains.geojson');
    const { layers } = await page.api.layers({});
    const overlay: MapLayer = { id: 'drains', name: info.name, visible: true, opacity: 1, source: { kind: 'file', file: info.file, format: info.format } };
    await page.api.saveLayers({ layers: [...layers, overlay] });
    await expect(page.api.removeLayerFile({ file: info.file })).rejects.toMatchObject({ code: RpcCode.invalidArguments, message: expect.stringMatching(/A saved layer uses that file/) });
    expect(await page.api.layerFile({ file: info.file })).toEqual(info);
    await page.api.saveLayers({ layers });
    expect(existsSync(join(layersDir(), `${info.file}.geojson`))).toBe(false);
    await expect(page.api.layerFile({ file: info.file })).rejects.toMatchObject({ code: 'not_found' });
    // One added and never saved: removed when asked.
    const unsaved = await upload(page, fx.geojson!, 'drains.geojson');
    await page.api.removeLayerFile({ file: unsaved.file });
    expect(readdirSync(layersDir()).filter((f) => f.startsWith(unsaved.file))).toEqual([]);
    await page.close();
  }, 60_000);

  it("keeps a file Electron's dialog chose, redeemed once by its ticket; the page can name no path, the command line reads no bytes", async () => {
    const page = await tab();
    const ticket = randomBytes(16).toString('hex');
    // Main's message, on the host's channel from its parent (here: this test, as the launcher).
    host.child.send({ type: LAYER_FILE_CHOSEN, ticket, path: fx.tif! });
    const progress: number[] = [];
    const info = await page.api.addLayerFileChosen({ ticket }, { onProgress: (p) => progress.push(p.done) });
    expect(info).toMatchObject({ format: 'geotiff', name: 'ortofoto', epsg: 25830 });
    expect(progress.at(-1)).toBe(info.bytes);
    await expect(page.api.addLayerFileChosen({ ticket })).rejects.toMatchObject({ code: 'upload_gone' });
    // A ticket whose path comes a moment later (the page's call overtook main's message) waits for it.
    const late = randomBytes(16).toString('hex');
    const waiting = page.api.addLayerFileChosen({ ticket: late });
    await new Promise((res) => setTimeout(res, 200));
    host.child.send({ type: LAYER_FILE_CHOSEN, ticket: late, path: fx.geojson! });
    expect(await waiting).toMatchObject({ format: 'vector', features: 4 });
    // A path from anyone but main is nobody's: the page has no such call.
    await expect(page.api.addLayerFilePath({ path: fx.tif! })).rejects.toMatchObject({ code: RpcCode.forbidden });
    await expect(host.api.layerFileSource({ file: info.file })).rejects.toMatchObject({ code: RpcCode.forbidden });
    await expect(host.api.addLayerFileChosen({ ticket })).rejects.toMatchObject({ code: RpcCode.forbidden });
    // The command line's own path, with its progress.
    expect(await host.api.addLayerFilePath({ path: fx.pmr! })).toMatchObject({ format: 'pmtiles-raster' });
    await page.close();
  }, 60_000);

  it('leaves nothing of an upload whose page went midway', async () => {
    const page = await tab();
    const { upload: id } = await page.api.addLayerFileBegin({ name: 'ortofoto.tif', size: 3 << 20 });
    await page.api.addLayerFileChunk({ upload: id, offset: 1 << 20, data: randomBytes(1 << 20).toString('base64') });
    expect(readdirSync(layersDir())).toContain(`${id}.upload.part`);
    await page.close();
    await expect.poll(() => readdirSync(layersDir()).filter((f) => f.endsWith('.part')), { timeout: 10_000 }).toEqual([]);
    // Past the limit: refused before anything is written.
    const again = await tab();
    await expect(again.api.addLayerFileBegin({ name: 'huge.mbtiles', size: 65 * 1024 ** 3 })).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    await again.close();
  }, 60_000);
});
