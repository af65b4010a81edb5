// Which tiles of an OpenLayers source are an area's: real XYZ, TileWMS and WMTS sources' grids mapped to XYZ tiles
// (a GoogleMapsCompatible WMTS set starting at zoom 1 included), a WGS84 grid refused, the area's box and zooms.
import { describe, expect, it } from 'vitest';
import XYZ from 'ol/source/XYZ.js';
import TileWMS from 'ol/source/TileWMS.js';
import WMTS from 'ol/source/WMTS.js';
import WMTSTileGrid from 'ol/tilegrid/WMTS.js';
import { get as getProjection } from 'ol/proj.js';
import { ancestorPart, belowArea, inArea, onPyramid, tilePath, withOfflineArea, xyzOf } from './offline-source.ts';
import { MERCATOR_HALF, tileRect } from '../../../core/tiles/tile-math.ts';
import type { MapLayer, OfflineArea } from '../../../core/api-layers.ts';

const E = MERCATOR_HALF;
const mercator = getProjection('EPSG:3857')!;
const area: OfflineArea = { file: 'a'.repeat(32), bbox: [13.39, 52.51, 13.42, 52.52], minZoom: 15, maxZoom: 17, tiles: 100, updated: '2026-01-01' };
const env = { api: { offlineTiles: () => Promise.resolve(null) }, bytesUrl: (p: string) => p };
const layer = (offline?: OfflineArea): MapLayer => ({ id: 'o', name: 'O', visible: true, opacity: 1, source: { kind: 'xyz', url: 'https://t.example.org/{z}/{x}/{y}.png' }, ...(offline ? { offline } : {}) });

describe("an online source's tiles", () => {
  it('are XYZ tiles on XYZ and TileWMS grids', () => {
    const xyz = new XYZ({ url: 'https://t.example.org/{z}/{x}/{y}.png' }).getTileGridForProjection(mercator);
    expect(xyzOf(xyz, [12, 2200, 1343])).toEqual({ z: 12, x: 2200, y: 1343 });
    const wms = new TileWMS({ url: 'https://w.example.org/wms', params: { LAYERS: 'x' } }).getTileGridForProjection(mercator);
    expect(xyzOf(wms, [15, 17600, 10746])).toEqual({ z: 15, x: 17600, y: 10746 });
    // 512-pixel tiles are not the file's.
    expect(xyzOf(new XYZ({ url: 'https://t.example.org/{z}/{x}/{y}.png', tileSize: 512 }).getTileGridForProjection(mercator), [3, 1, 1])).toBeNull();
  });

  it('are XYZ tiles on a Web Mercator WMTS set, whatever level it starts at; not on a WGS84 one', () => {
    const levels = [1, 2, 3, 4];
    const google = new WMTSTileGrid({
      origin: [-E, E], resolutions: levels.map((z) => (2 * E) / 256 / 2 ** z), matrixIds: levels.map(String), tileSize: 256,
    });
    expect(xyzOf(google, [2, 5, 6])).toEqual({ z: 3, x: 5, y: 6 });
    expect(onPyramid(google)).toBe(true);
    const wgs84 = new WMTSTileGrid({ origin: [-180, 90], resolutions: levels.map((z) => 0.703125 / 2 ** z), matrixIds: levels.map(String), tileSize: 256 });
    expect(xyzOf(wgs84, [2, 5, 6])).toBeNull();
    expect(onPyramid(wgs84)).toBe(false);
    const source = new WMTS({ url: 'https://m.example.org/wmts', layer: 'l', matrixSet: 'WGS84', style: 'default', tileGrid: wgs84, projection: 'EPSG:4326' });
    expect(withOfflineArea(layer(area), source, env)).toBe(false);
  });

  it('are the area\'s within its box and zooms only', () => {
    const r = tileRect(area.bbox, 16);
    expect(inArea(area, { z: 16, x: r.x0, y: r.y0 })).toBe(true);
    expect(inArea(area, { z: 16, x: r.x1, y: r.y1 })).toBe(true);
    expect(inArea(area, { z: 16, x: r.x1 + 1, y: r.y1 })).toBe(false);
    expect(inArea(area, { z: 16, x: r.x0, y: r.y0 - 1 })).toBe(false);
    expect(inArea(area, { z: 18, x: r.x0 * 4, y: r.y0 * 4 })).toBe(false);
    expect(inArea(area, { z: 14, x: r.x0 / 4, y: r.y0 / 4 })).toBe(false);
    expect(tilePath('/bytes/k/i/{z}-{x}-{y}', { z: 16, x: 35200, y: 21490 })).toBe('/bytes/k/i/16-35200-21490');
  });

  it("past the area's deepest zoom, under its box, are a part of an ancestor scaled up", () => {
    // Zoom 19 under a zoom-17 tile: a quarter of it across, the tile's place within it.
    expect(ancestorPart({ z: 19, x: 4 * 100 + 3, y: 4 * 200 + 1 }, 17)).toEqual({ ancestor: { z: 17, x: 100, y: 200 }, x: 192, y: 64, size: 64 });
    expect(ancestorPart({ z: 18, x: 2 * 100 + 1, y: 2 * 200 }, 17)).toEqual({ ancestor: { z: 17, x: 100, y: 200 }, x: 128, y: 0, size: 128 });
    const r = tileRect(area.bbox, 17);
    expect(belowArea(area, { z: 19, x: r.x0 * 4, y: r.y0 * 4 })).toBe(true);
    expect(belowArea(area, { z: 22, x: r.x1 * 32 + 31, y: r.y1 * 32 + 31 })).toBe(true);
    expect(belowArea(area, { z: 19, x: (r.x1 + 1) * 4, y: r.y0 * 4 })).toBe(false);
    // Within its zooms the file's own tile is read, not an ancestor's.
    expect(belowArea(area, { z: 17, x: r.x0, y: r.y0 })).toBe(false);
  });

  it('are loaded from the file only for a layer with an area', () => {
    const source = new XYZ({ url: 'https://t.example.org/{z}/{x}/{y}.png' });
    const before = source.getTileLoadFunction();
    expect(withOfflineArea(layer(), source, env)).toBe(false);
    expect(source.getTileLoadFunction()).toBe(before);
    expect(withOfflineArea(layer(area), source, env)).toBe(true);
    expect(source.getTileLoadFunction()).not.toBe(before);
  });
});
