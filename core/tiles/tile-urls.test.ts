// A tile's address at each kind of online layer, the WMTS matrix sets an MBTiles file can hold, and the cap in words.
import { describe, expect, it } from 'vitest';
import { wmsTileUrl, wmtsTileUrl, xyzTileUrl, type WmtsTileEndpoint } from './tile-urls.ts';
import { webMercatorMatrices, ZOOM0_SCALE, type TileMatrixSetInfo } from './wmts-grid.ts';
import { MERCATOR_HALF } from './tile-math.ts';
import { tileCapProblem } from './tile-cap.ts';

describe('XYZ addresses', () => {
  it('fill in z, x, y and the TMS row', () => {
    expect(xyzTileUrl('https://tile.example.org/{z}/{x}/{y}.png', 12, 2200, 1343)).toBe('https://tile.example.org/12/2200/1343.png');
    expect(xyzTileUrl(' https://t.example.org/{z}/{x}/{-y}.jpg ', 3, 1, 0)).toBe('https://t.example.org/3/1/7.jpg');
  });

  it('send a tile always to the same server of a choice list', () => {
    const url = (x: number, y: number) => xyzTileUrl('https://{a-c}.tile.example.org/{z}/{x}/{y}.png', 5, x, y);
    expect(url(0, 0)).toBe('https://a.tile.example.org/5/0/0.png');
    expect(url(1, 0)).toBe('https://b.tile.example.org/5/1/0.png');
    expect(url(1, 1)).toBe('https://c.tile.example.org/5/1/1.png');
    expect(url(1, 1)).toBe(url(1, 1));
    expect(xyzTileUrl('https://t{1-4}.example.org/{z}/{x}/{y}', 1, 0, 0)).toBe('https://t1.example.org/1/0/0');
  });
});

describe('WMS addresses', () => {
  it("ask GetMap 1.3.0 for the tile's EPSG:3857 box, easting first, 256 pixels", () => {
    const u = new URL(wmsTileUrl({ url: 'https://wms.example.org/ows?map=ortho&request=GetCapabilities', layers: 'OI.Ortho', format: 'image/jpeg' }, 1, 1, 0));
    const p = Object.fromEntries([...u.searchParams].map(([k, v]) => [k.toUpperCase(), v]));
    expect(p).toEqual({
      MAP: 'ortho', SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetMap', LAYERS: 'OI.Ortho', STYLES: '', CRS: 'EPSG:3857',
      BBOX: `0.000000,0.000000,${MERCATOR_HALF.toFixed(6)},${MERCATOR_HALF.toFixed(6)}`, WIDTH: '256', HEIGHT: '256', FORMAT: 'image/jpeg', TRANSPARENT: 'FALSE',
    });
    // The service's own request=GetCapabilities replaced, not doubled.
    expect([...u.searchParams.keys()].filter((k) => k.toLowerCase() === 'request')).toEqual(['REQUEST']);
  });
});

describe('WMTS addresses', () => {
  const rest: WmtsTileEndpoint = {
    layer: 'ortho', style: 'default', format: 'image/png', matrixSet: 'GoogleMapsCompatible', matrices: { 0: '00', 5: '05' },
    template: 'https://wmts.example.org/{Layer}/{Style}/{Time}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png', dimensions: { Time: '2024' },
  };
  it('fill a REST template, matrix by zoom and dimensions by their defaults', () => {
    expect(wmtsTileUrl(rest, 5, 17, 11)).toBe('https://wmts.example.org/ortho/default/2024/GoogleMapsCompatible/05/11/17.png');
    expect(wmtsTileUrl(rest, 6, 0, 0)).toBeNull();
  });
  it('or build a KVP GetTile', () => {
    const u = new URL(wmtsTileUrl({ ...rest, template: undefined, kvp: 'https://wmts.example.org/wmts?' }, 0, 0, 0)!);
    expect(Object.fromEntries(u.searchParams)).toEqual({
      SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: 'ortho', STYLE: 'default', FORMAT: 'image/png',
      TILEMATRIXSET: 'GoogleMapsCompatible', TILEMATRIX: '00', TILEROW: '0', TILECOL: '0',
    });
  });
});

describe('WMTS matrix sets', () => {
  const google = (z0: number, z1: number, over: Partial<TileMatrixSetInfo['matrices'][number]> = {}): TileMatrixSetInfo => ({
    id: 'GoogleMapsCompatible', crs: 'urn:ogc:def:crs:EPSG::3857',
    matrices: Array.from({ length: z1 - z0 + 1 }, (_, i) => ({
      id: `EPSG:3857:${z0 + i}`, scaleDenominator: ZOOM0_SCALE / 2 ** (z0 + i), topLeft: [-20037508.3428, 20037508.3428] as [number, number], tileWidth: 256, tileHeight: 256, ...over,
    })),
  });
  it("take Web Mercator's pyramid, each matrix at its zoom", () => {
    expect(webMercatorMatrices(google(0, 2))).toEqual({ matrices: { 0: 'EPSG:3857:0', 1: 'EPSG:3857:1', 2: 'EPSG:3857:2' } });
    expect(webMercatorMatrices({ ...google(3, 4), crs: 'EPSG:900913' })).toEqual({ matrices: { 3: 'EPSG:3857:3', 4: 'EPSG:3857:4' } });
  });
  it('refuse any other set, saying why and what to choose', () => {
    expect(webMercatorMatrices({ ...google(0, 2), id: 'WGS84', crs: 'urn:ogc:def:crs:EPSG::4326' })).toEqual({ problem: expect.stringMatching(/^The WMTS tile matrix set WGS84 is in urn:ogc:def:crs:EPSG::4326: only Web Mercator sets .*Choose the layer's GoogleMapsCompatible/) });
    expect(webMercatorMatrices(google(0, 2, { tileWidth: 512, tileHeight: 512 }))).toEqual({ problem: expect.stringMatching(/512×512 pixel tiles/) });
    expect(webMercatorMatrices(google(0, 2, { topLeft: [-20037508.3428, 30240971.958] }))).toEqual({ problem: expect.stringMatching(/top-left corner is not the world's/) });
    expect(webMercatorMatrices(google(0, 2, { scaleDenominator: 1_000_000 }))).toEqual({ problem: expect.stringMatching(/between Web Mercator's zooms/) });
  });
});

describe('the tile cap in words', () => {
  const farm = [13.30, 52.48, 13.45, 52.56] as const;
  it('is silent within the cap', () => {
    expect(tileCapProblem([farm], 10, 12, 50, 100)).toBeNull();
  });
  it('says the zooms that fit, or that the area must shrink', () => {
    expect(tileCapProblem([farm], 10, 18, 20_000, 1000)).toMatch(/^The area at zooms 10–18 is 20,000 tiles: at most 1,000 are downloaded at once \(the setting FURROW_OFFLINE_MAX_TILES\)\. Choose zooms 10–\d+ \([\d,]+ tiles\), or a smaller area\.$/);
    expect(tileCapProblem([[-180, -85, 180, 85]], 8, 9, 327_680, 1000)).toMatch(/Zoom 8 alone is 65,536 tiles: choose a smaller area\.$/);
  });
});
