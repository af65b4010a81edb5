import { describe, expect, it } from 'vitest';
import { defaultLayerName, fileWords, hostOf, legendLine, tilesFailingWords, topFirst, wmsLegendUrl } from './layer-words.ts';
import type { LayerFileInfo } from '../../../core/api-layer-files.ts';
import { worldLayer } from '../../../core/layers/layer-rules.ts';
import type { MapLayer } from '../../../core/api-layers.ts';

describe('layer words', () => {
  it('says a layer\'s tiles fail in one sentence, with or without the host\'s own full stop', () => {
    expect(tilesFailingWords('127.0.0.1:8080 could not be reached')).toBe('its tiles cannot be loaded: 127.0.0.1:8080 could not be reached.');
    expect(tilesFailingWords('127.0.0.1:8080 cannot be reached (offline, or the address is wrong).'))
      .toBe('its tiles cannot be loaded: 127.0.0.1:8080 cannot be reached (offline, or the address is wrong).');
  });

  it('names a new layer by its service layer and host, or its kind and host', () => {
    expect(hostOf('https://tile.example.org/{z}/{x}/{y}.png')).toBe('tile.example.org');
    expect(hostOf('not a url')).toBe('not a url');
    expect(defaultLayerName('xyz', 'https://tile.example.org/{z}/{x}/{y}.png')).toBe('XYZ tiles from tile.example.org');
    expect(defaultLayerName('wms', 'https://www.ign.es/wms-inspire/pnoa-ma', ' OI.OrthoimageCoverage ')).toBe('OI.OrthoimageCoverage (www.ign.es)');
    expect(defaultLayerName('wmts', 'https://x.org/c.xml', 'L'.repeat(300))).toHaveLength(200);
  });

  it("says what each layer is, where from, what is kept offline and whom it credits", () => {
    expect(legendLine(worldLayer())).toBe('Natural Earth land, coastlines and borders, always offline');
    const ortho: MapLayer = { id: 'o', name: 'Ortho', visible: true, opacity: 1, attribution: '© IGN', source: { kind: 'wms', url: 'https://www.ign.es/wms', layers: 'OI', format: 'image/jpeg' },
      offline: { file: 'a'.repeat(32), bbox: [0, 0, 1, 1], minZoom: 12, maxZoom: 17, tiles: 12345, updated: '2026-11-29T00:00:00Z' } };
    expect(legendLine(ortho)).toBe('WMS OI from www.ign.es; 12,345 tiles kept offline (zoom 12–17) · © IGN');
    expect(legendLine({ ...ortho, offline: undefined, source: { kind: 'file', file: 'a'.repeat(32), format: 'pmtiles-vector' } })).toBe('PMTiles, vector, kept on this computer · © IGN');
  });

  it("names a file layer's kind and what it holds, as the host found it", () => {
    const info: LayerFileInfo = { file: 'a'.repeat(32), format: 'pmtiles-vector', name: 'Roads', bbox: null, minZoom: 0, maxZoom: 14, attribution: null, epsg: null, bytes: 1, features: null, notes: [] };
    const layer: MapLayer = { id: 'f', name: 'Roads', visible: true, opacity: 1, source: { kind: 'file', file: info.file, format: info.format } };
    expect(legendLine(layer, info)).toBe('PMTiles, vector, z0–14');
    expect(fileWords('mbtiles-raster', { ...info, format: 'mbtiles-raster', minZoom: 13, maxZoom: 15 })).toBe('MBTiles, raster, z13–15');
    expect(fileWords('geotiff', { ...info, format: 'geotiff', minZoom: null, maxZoom: null, epsg: 25830, overviews: 3 })).toBe('GeoTIFF, EPSG:25830, 3 overviews');
    expect(fileWords('geotiff', { ...info, format: 'geotiff', epsg: 3857, overviews: 1 })).toBe('GeoTIFF, EPSG:3857, 1 overview');
    expect(fileWords('geotiff', { ...info, format: 'geotiff', epsg: 3857, overviews: 0 })).toBe('GeoTIFF, EPSG:3857, no overviews');
    expect(fileWords('vector', { ...info, format: 'vector', features: 120, origin: 'GeoJSON' })).toBe('GeoJSON, 120 features');
    expect(fileWords('vector', { ...info, format: 'vector', features: 1, origin: 'Shapefile' })).toBe('Shapefile, 1 feature');
    // Kept before the host said what it was read from.
    expect(fileWords('vector', { ...info, format: 'vector', features: 7 })).toBe('Vector overlay, 7 features');
  });

  it('lists the top layer first', () => {
    const a = { ...worldLayer() };
    const b = { ...worldLayer(), id: 'b' };
    expect(topFirst([a, b]).map((l) => l.id)).toEqual(['b', 'world']);
  });

  it("asks a WMS service for its first layer's legend, keeping the address's own query", () => {
    expect(wmsLegendUrl({ url: 'https://wms.example.org/cgi?map=/x.map', layers: 'roads, rivers' }))
      .toBe('https://wms.example.org/cgi?map=%2Fx.map&SERVICE=WMS&VERSION=1.3.0&REQUEST=GetLegendGraphic&FORMAT=image%2Fpng&LAYER=roads&SLD_VERSION=1.1.0');
    expect(wmsLegendUrl({ url: 'not a url', layers: 'x' })).toBeNull();
  });
});
