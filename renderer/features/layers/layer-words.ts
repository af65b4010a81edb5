// The layers panel's words (features/layers/), pure: what each kind of layer is called, the name a new layer gets
// from its address when the user gives none, and its legend entry's line.
import type { MapLayer } from '../../../core/api-layers.ts';
import type { LayerFileInfo } from '../../../core/api-layer-files.ts';

export type OnlineKind = 'xyz' | 'wms' | 'wmts';

export const KIND_WORDS: Record<MapLayer['source']['kind'], string> = {
  world: 'Offline backdrop', xyz: 'XYZ tiles', wms: 'WMS', wmts: 'WMTS', file: 'File',
};

const FILE_WORDS: Record<Extract<MapLayer['source'], { kind: 'file' }>['format'], string> = {
  'mbtiles-raster': 'MBTiles, raster', 'mbtiles-vector': 'MBTiles, vector', 'pmtiles-raster': 'PMTiles, raster',
  'pmtiles-vector': 'PMTiles, vector', geotiff: 'GeoTIFF', vector: 'Vector overlay',
};

/** The host part of an address, or the address itself when it has none. */
export function hostOf(url: string): string {
  try {
    return new URL(url.trim().replace(/\{[a-z-]+\}/gi, '0')).host || url;
  } catch {
    return url;
  }
}

/** A new online layer's name when none is typed: its WMS/WMTS layer, else its server. */
export function defaultLayerName(kind: OnlineKind, url: string, layer?: string): string {
  const named = layer?.trim();
  return (named ? `${named} (${hostOf(url)})` : `${KIND_WORDS[kind]} from ${hostOf(url)}`).slice(0, 200);
}

const count = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/**
 * A file layer's kind and what it holds, as the host found it: "PMTiles, vector, z0–14", "GeoTIFF, EPSG:25830,
 * 3 overviews", "GeoJSON, 120 features". Without the host's answer yet, its kind alone.
 */
export function fileWords(format: LayerFileInfo['format'], info?: LayerFileInfo): string {
  if (!info) return `${FILE_WORDS[format]}, kept on this computer`;
  if (format === 'vector') return `${info.origin ?? 'Vector overlay'}${info.features === null ? '' : `, ${count(info.features, 'feature')}`}`;
  if (format === 'geotiff') {
    const parts = ['GeoTIFF', ...(info.epsg === null ? [] : [`EPSG:${info.epsg}`])];
    if (info.overviews !== undefined) parts.push(info.overviews ? count(info.overviews, 'overview') : 'no overviews');
    return parts.join(', ');
  }
  const zooms = info.minZoom === null || info.maxZoom === null ? '' : `, z${info.minZoom}–${info.maxZoom}`;
  return `${FILE_WORDS[format]}${zooms}`;
}

/**
 * The legend entry's line under a layer's name: what it is, from where, and whom the source credits; `file`: what the
 * host found in a file layer's file (fileWords).
 */
export function legendLine(l: MapLayer, file?: LayerFileInfo): string {
  const s = l.source;
  const what = s.kind === 'world' ? 'Natural Earth land, coastlines and borders, always offline'
    : s.kind === 'file' ? fileWords(s.format, file)
      : s.kind === 'wmts' ? `WMTS ${s.layer} from ${hostOf(s.capabilities)}`
        : s.kind === 'wms' ? `WMS ${s.layers} from ${hostOf(s.url)}` : `XYZ tiles from ${hostOf(s.url)}`;
  const offline = l.offline ? `; ${l.offline.tiles.toLocaleString('en-US')} tiles kept offline (zoom ${l.offline.minZoom}–${l.offline.maxZoom})` : '';
  return `${what}${offline}${l.attribution && s.kind !== 'world' ? ` · ${l.attribution}` : ''}`;
}

/** The layers top first, as the panel lists them (the list is kept bottom to top, the order they are drawn in). */
export const topFirst = (layers: readonly MapLayer[]): MapLayer[] => [...layers].reverse();

/** A WMS layer's GetLegendGraphic request (its address's own query kept), or null for an address that is not a URL. */
export function wmsLegendUrl(s: { url: string; layers: string }): string | null {
  try {
    const u = new URL(s.url.trim());
    for (const [k, v] of Object.entries({ SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetLegendGraphic', FORMAT: 'image/png', LAYER: s.layers.split(',')[0]!.trim(), SLD_VERSION: '1.1.0' })) u.searchParams.set(k, v);
    return u.href;
  } catch {
    return null;
  }
}

/**
 * What the status line says of a layer whose tiles fail, from the host's reason: one sentence, whichever way the host
 * words it (a tile's fetch gives no full stop, a WMTS layer's capabilities read again give one: "..", seen in CI).
 */
export function tilesFailingWords(why: string): string {
  return `its tiles cannot be loaded: ${why.trim().replace(/\.+$/, '')}.`;
}
