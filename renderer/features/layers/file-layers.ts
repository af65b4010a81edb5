// A layer made of a file the host keeps (core/api-layers.ts FileSource), as an OpenLayers layer under the parcels.
// The page asks the host for the file's bytes paths (layerFileSource: its session's own, on the page's origin) and
// reads them as each kind needs:
// - MBTiles: tiles by name, served by the host out of the file (PNG/JPEG/WebP images, or MVT);
// - PMTiles: the pmtiles package's FetchSource over the file's path, by HTTP range;
// - GeoTIFF / COG: OpenLayers' GeoTIFF source (geotiff.js, by range, with the file's overviews) on a WebGL tile
//   layer, its CRS registered from the proj4 definition the host answers for its EPSG code;
// - a vector overlay: the GeoJSON the host made of it, read-only, drawn plainly and snapped to while drawing and
//   modifying (features/map/snap.ts).
// Vector tiles get the default style of file-layer-styles.ts. The layer is returned at once and gets its source when
// the host answers; a source that cannot be read is reported (env.failing), never thrown.
import type BaseLayer from 'ol/layer/Base.js';
import TileLayer from 'ol/layer/Tile.js';
import VectorTileLayer from 'ol/layer/VectorTile.js';
import VectorLayer from 'ol/layer/Vector.js';
import WebGLTileLayer from 'ol/layer/WebGLTile.js';
import ImageTileSource from 'ol/source/ImageTile.js';
import VectorTileSource from 'ol/source/VectorTile.js';
import VectorSource from 'ol/source/Vector.js';
import GeoTIFF from 'ol/source/GeoTIFF.js';
import MVT from 'ol/format/MVT.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import type VectorTile from 'ol/VectorTile.js';
import type Tile from 'ol/Tile.js';
import type { Extent } from 'ol/extent.js';
import { transformExtent } from 'ol/proj.js';
import { register } from 'ol/proj/proj4.js';
import proj4 from 'proj4';
import { FetchSource, PMTiles } from 'pmtiles';
import type { MapLayer } from '../../../core/api-layers.ts';
import type { LayerFileSource } from '../../../core/api-layer-files.ts';
import { tileOf } from '../../../core/layers/layer-files.ts';
import type { AppApi } from '../../backend.ts';
import { snapToOverlay } from '../map/snap.ts';
import { webglAvailable } from '../map/webgl.ts';
import { overlayStyle, vectorTileStyle } from './file-layer-styles.ts';

/** What a file layer needs of the map's layers (build-layer.ts's LayerEnv). */
export interface FileLayerEnv {
  api: Pick<AppApi, 'layerFileSource'>;
  /** A bytes path the host answered, as a URL on the page's origin (renderer/bytes-url.ts). */
  bytesUrl(path: string): string;
  /** The layer's source failing (what failed, in words) or loading again (null): the panel says so. */
  failing(id: string, why: string | null): void;
  /** What the host found in the file (the legend says it). */
  described?(info: LayerFileSource['info']): void;
}

type Failed = (why: string | null) => void;
const TILES_FAIL = 'its tiles cannot be read from the file kept on this computer.';
const NO_WEBGL = 'this browser draws no WebGL, which a GeoTIFF layer needs.';
/** The host's refusal (the file no longer kept…), in its words. */
const said = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The map's projection (the parcels', the world's). */
const VIEW = 'EPSG:3857';

/** The extent the file covers, in the map's projection (nothing is asked of it outside). */
const extentOf = (s: LayerFileSource): Extent | undefined => (s.info.bbox ? transformExtent(s.info.bbox, 'EPSG:4326', VIEW) : undefined);

/** The layer of a file layer, its source set once the host answers; null for another kind of layer. */
export function fileLayer(l: MapLayer, env: FileLayerEnv): BaseLayer | null {
  if (l.source.kind !== 'file') return null;
  const { file, format } = l.source;
  const common = { visible: l.visible, opacity: l.opacity, className: `ol-layer file-layer file-layer-${format}`, properties: { layerId: l.id } };
  const failed: Failed = (why) => env.failing(l.id, why);
  const refused = (err: unknown) => failed(said(err));
  const answer = env.api.layerFileSource({ file });
  void answer.then((s) => env.described?.(s.info), () => {});
  switch (format) {
    case 'mbtiles-raster': case 'pmtiles-raster': {
      const layer = new TileLayer({ ...common, preload: 0 });
      void answer.then((s) => {
        layer.setExtent(extentOf(s));
        layer.setSource(rasterSource(s, env, l.attribution, failed));
      }, refused);
      return layer;
    }
    case 'mbtiles-vector': case 'pmtiles-vector': {
      const layer = new VectorTileLayer({ ...common, declutter: true, style: vectorTileStyle, renderMode: 'hybrid' });
      void answer.then((s) => {
        layer.setExtent(extentOf(s));
        layer.setSource(vectorTileSource(s, env, l.attribution, failed));
      }, refused);
      return layer;
    }
    case 'geotiff': {
      // OpenLayers draws a GeoTIFF with WebGL only: a browser without it shows the layer as failing.
      if (!webglAvailable()) {
        queueMicrotask(() => failed(NO_WEBGL));
        return new TileLayer(common);
      }
      const layer = new WebGLTileLayer(common);
      void answer.then((s) => {
        layer.setExtent(extentOf(s));
        layer.setSource(geotiffSource(s, env, l.attribution, failed));
      }, refused);
      return layer;
    }
    case 'vector': {
      const source = new VectorSource({ attributions: l.attribution });
      const layer = new VectorLayer({ ...common, source, style: overlayStyle, updateWhileInteracting: false });
      const unsnap = snapToOverlay(layer, source);
      // Off the map for good (its group disposes of it): no more snapping to it.
      const dispose = layer.dispose.bind(layer);
      layer.dispose = () => { unsnap(); dispose(); };
      void answer.then(async (s) => {
        const res = await fetch(env.bytesUrl(s.path!));
        if (!res.ok) throw new Error(`its features cannot be read (the app answered ${res.status}).`);
        source.addFeatures(new GeoJSON().readFeatures(await res.json(), { dataProjection: 'EPSG:4326', featureProjection: VIEW }));
        failed(null);
      }).catch(refused);
      return layer;
    }
  }
}

/**
 * Reports a tile source's health: failing when a tile fails, working again when one loads. Where a file has no tile
 * the host answers an empty one (and the PMTiles loaders make one): only a real failure fails.
 */
function watchTiles(source: { on(type: 'tileloadend' | 'tileloaderror', fn: () => void): unknown }, failed: Failed): void {
  source.on('tileloadend', () => failed(null));
  source.on('tileloaderror', () => failed(TILES_FAIL));
}

/** An empty tile: where a tile set has none, nothing is drawn, and nothing has failed. */
const emptyTile = (size = 256) => createImageBitmap(new ImageData(size, size));

function rasterSource(s: LayerFileSource, env: FileLayerEnv, attributions: string | undefined, failed: Failed): ImageTileSource {
  const zooms = { minZoom: s.info.minZoom ?? 0, maxZoom: s.info.maxZoom ?? 22 };
  let source: ImageTileSource;
  if (s.tiles) {
    // MBTiles: each tile at its bytes path, checked to be one (bytesUrl refuses anything else).
    source = new ImageTileSource({ ...zooms, attributions, transition: 0, wrapX: false, url: (z, x, y) => env.bytesUrl(tileOf(s.tiles!, z, x, y)) });
  } else {
    const archive = new PMTiles(new FetchSource(env.bytesUrl(s.path!)));
    source = new ImageTileSource({
      ...zooms, attributions, transition: 0, wrapX: false,
      loader: async (z, x, y, { signal }) => {
        const r = await archive.getZxy(z, x, y, signal);
        return r ? createImageBitmap(new Blob([r.data])) : emptyTile();
      },
    });
  }
  watchTiles(source, failed);
  return source;
}

function vectorTileSource(s: LayerFileSource, env: FileLayerEnv, attributions: string | undefined, failed: Failed): VectorTileSource {
  const zooms = { minZoom: s.info.minZoom ?? 0, maxZoom: s.info.maxZoom ?? 14 };
  const format = new MVT();
  let source: VectorTileSource;
  if (s.tiles) {
    source = new VectorTileSource({ ...zooms, attributions, format, wrapX: false, tileUrlFunction: (c) => env.bytesUrl(tileOf(s.tiles!, c[0]!, c[1]!, c[2]!)) });
  } else {
    const archive = new PMTiles(new FetchSource(env.bytesUrl(s.path!)));
    source = new VectorTileSource({
      ...zooms, attributions, format, wrapX: false,
      // A tile's "address" is only its coordinates: the loader reads it out of the archive.
      tileUrlFunction: ([z, x, y]) => `${z}/${x}/${y}`,
      tileLoadFunction: (tile: Tile) => {
        const vt = tile as VectorTile<never>;
        vt.setLoader((extent, _resolution, projection) => {
          const [z, x, y] = vt.getTileCoord() as [number, number, number];
          archive.getZxy(z, x, y).then((r) => {
            vt.setFeatures(r ? format.readFeatures(r.data, { extent, featureProjection: projection }) as never[] : []);
          }, () => vt.onError());
        });
      },
    });
  }
  watchTiles(source, failed);
  return source;
}

function geotiffSource(s: LayerFileSource, env: FileLayerEnv, attributions: string | undefined, failed: Failed): GeoTIFF {
  // Its CRS known to OpenLayers before the source reads the file's GeoKeys (EPSG:3857 and 4326 it knows already).
  if (s.proj4 && s.info.epsg !== null) {
    proj4.defs(`EPSG:${s.info.epsg}`, s.proj4);
    register(proj4);
  }
  const source = new GeoTIFF({ sources: [{ url: env.bytesUrl(s.path!) }], convertToRGB: 'auto', wrapX: false, attributions });
  source.on('change', () => {
    if (source.getState() === 'error') failed(`the GeoTIFF cannot be read: ${said(source.getError())}`);
    else if (source.getState() === 'ready') failed(null);
  });
  watchTiles(source, failed);
  return source;
}
