// One map layer (core/api-layers.ts MapLayer) as an OpenLayers layer, by the kind of its source: the world backdrop,
// XYZ tiles, a WMS service's GetMap as tiles, a WMTS layer read from its capabilities (fetched by the host: the page
// connects nowhere but home), a file the host keeps (MBTiles, PMTiles, GeoTIFF, a vector overlay: file-layers.ts). Each reports its tiles failing and loading again, so the map says once that a source
// is unavailable and goes on without it. Sources load no cross-origin pixels into a shared canvas: each layer has a
// canvas of its own (className), and a tile server without CORS headers works too.
import type BaseLayer from 'ol/layer/Base.js';
import TileLayer from 'ol/layer/Tile.js';
import XYZ from 'ol/source/XYZ.js';
import TileWMS from 'ol/source/TileWMS.js';
import WMTS, { optionsFromCapabilities } from 'ol/source/WMTS.js';
import WMTSCapabilities from 'ol/format/WMTSCapabilities.js';
import type TileSource from 'ol/source/Tile.js';
import type TileImage from 'ol/source/TileImage.js';
import type { MapLayer } from '../../../core/api-layers.ts';
import type { LayerFileInfo } from '../../../core/api-layer-files.ts';
import type { AppApi } from '../../backend.ts';
import { worldBackdrop } from './world.ts';
import { fileLayer } from './file-layers.ts';
import { withOfflineArea } from './offline-source.ts';
import { LayerHealth, xyzTileAt } from './tile-health.ts';
import { tilesFailingWords } from './layer-words.ts';
import type { TileSourceEvent } from 'ol/source/Tile.js';

export interface LayerEnv {
  api: AppApi;
  /** A bytes path the host answered, as a URL on the page's origin (renderer/bytes-url.ts). */
  bytesUrl(path: string): string;
  /** The layer's source failing (what failed, in words) or loading again (null). */
  failing(id: string, why: string | null): void;
  /** What the host found in a file layer's file. */
  described?(info: LayerFileInfo): void;
}

/**
 * Reports a tile source's failures and recoveries for layer `id`: a tile's error is checked by the host fetching it
 * (tile-health.ts), so a server's 404 beyond its coverage is no failure.
 */
export function watchTiles(source: TileSource, id: string, env: LayerEnv): void {
  const health = new LayerHealth((t) => env.api.layerProbe({ layer: id, ...t }), (why) => env.failing(id, why === null ? null : tilesFailingWords(why)));
  source.on('tileloaderror', (e: TileSourceEvent) => {
    const grid = source.getTileGrid();
    const coord = e.tile.getTileCoord();
    const in3857 = source.getProjection()?.getCode() === 'EPSG:3857' && grid;
    health.failed(in3857 ? xyzTileAt(grid.getTileCoordExtent(coord), grid.getResolution(coord[0]!)) : null);
  });
  source.on('tileloadend', () => health.loaded());
}

function tileLayer(l: MapLayer, source: TileSource | null, env: LayerEnv): TileLayer<TileSource> {
  if (source) watchTiles(source, l.id, env);
  return new TileLayer({ source: source ?? undefined, className: `ol-layer layer-${l.source.kind}`, preload: 0 });
}

/** `source`, its tiles within `l`'s area kept offline read from the area's file (features/layers/offline-source.ts). */
function offline<S extends TileImage>(l: MapLayer, source: S, env: LayerEnv): S {
  withOfflineArea(l, source, env);
  return source;
}

/** The OpenLayers layer for `l`, or null for a kind this page does not draw. Visibility and opacity are the caller's. */
export function buildLayer(l: MapLayer, env: LayerEnv): BaseLayer | null {
  const s = l.source;
  switch (s.kind) {
    case 'world':
      return worldBackdrop();
    case 'xyz':
      return tileLayer(l, offline(l, new XYZ({ url: s.url.trim(), maxZoom: Math.max(19, l.offline?.maxZoom ?? 0), transition: 0, attributions: l.attribution }), env), env);
    case 'wms':
      return tileLayer(l, offline(l, new TileWMS({
        url: s.url.trim(), transition: 0, attributions: l.attribution,
        params: { LAYERS: s.layers, FORMAT: s.format, TRANSPARENT: s.format === 'image/png', VERSION: '1.3.0', STYLES: '' },
      }), env), env);
    case 'wmts': {
      const layer = tileLayer(l, null, env);
      void wmtsSource(l, s, env).then((source) => {
        if (!source) return;
        offline(l, source, env);
        watchTiles(source, l.id, env);
        layer.setSource(source);
      });
      return layer;
    }
    case 'file':
      // Files kept by the host: read through this page's bytes paths (features/layers/file-layers.ts).
      return fileLayer(l, env);
  }
}

/** The WMTS source of `l` from its capabilities document (read by the host), or null when it cannot be made (said). */
async function wmtsSource(l: MapLayer, s: Extract<MapLayer['source'], { kind: 'wmts' }>, env: LayerEnv): Promise<WMTS | null> {
  try {
    const { text } = await env.api.onlineCapabilities({ url: s.capabilities });
    const options = optionsFromCapabilities(new WMTSCapabilities().read(text), { layer: s.layer, matrixSet: s.matrixSet });
    if (!options) {
      env.failing(l.id, `its service no longer offers the layer ${s.layer} in ${s.matrixSet}.`);
      return null;
    }
    return new WMTS({ ...options, transition: 0, attributions: l.attribution });
  } catch (err) {
    env.failing(l.id, `${(err as Error).message}`);
    return null;
  }
}
