// The address of one Web Mercator tile (XYZ z/x/y, row 0 at the north) at an online layer's server, for the host
// to download an area (backend/offline-areas.ts): an XYZ template filled in, a WMS GetMap of the tile's box, a WMTS
// tile by REST template or KVP. The page never sends an address: the host builds each one from the layer as saved.
// Pure.
import { tileBounds3857 } from './tile-math.ts';

/**
 * An XYZ template's address of a tile: {z} {x} {y}, {-y} (the TMS row), and a choice list such as {a-c} or {1-4}
 * (OpenLayers expands one into several servers) taken by the tile, so that a tile always goes to the same server.
 */
export function xyzTileUrl(template: string, z: number, x: number, y: number): string {
  return xyzTemplate(template)(z, x, y);
}

/**
 * xyzTileUrl with the template read once: its text cut at the placeholders, so that each of a download's tiles is a
 * join of strings, not a regular expression's pass (a tenth of the host's CPU per tile, measured).
 */
export function xyzTemplate(template: string): (z: number, x: number, y: number) => string {
  type Part = string | ((z: number, x: number, y: number) => string);
  const parts: Part[] = [];
  const t = template.trim();
  const re = /\{(-?[a-z]+|[a-z0-9]-[a-z0-9])\}/gi;
  let at = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    parts.push(t.slice(at, m.index));
    at = m.index + m[0].length;
    const key = m[1]!;
    const range = /^([a-z0-9])-([a-z0-9])$/i.exec(key);
    const [from, to] = range ? [range[1]!.charCodeAt(0), range[2]!.charCodeAt(0)] : [0, -1];
    parts.push(
      key === 'z' ? (z) => String(z)
      : key === 'x' ? (_z, x) => String(x)
      : key === 'y' ? (_z, _x, y) => String(y)
      : key === '-y' ? (z, _x, y) => String(2 ** z - 1 - y)
      : range && to >= from ? (_z, x, y) => String.fromCharCode(from + ((x + y) % (to - from + 1)))
      : m[0],
    );
  }
  parts.push(t.slice(at));
  return (z, x, y) => {
    let out = '';
    for (const p of parts) out += typeof p === 'string' ? p : p(z, x, y);
    return out;
  };
}

/** Sets query parameters on an address, replacing any of the same name in any case (a service's own ones kept). */
function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url.trim());
  const names = new Set(Object.keys(params).map((k) => k.toLowerCase()));
  for (const k of [...u.searchParams.keys()]) if (names.has(k.toLowerCase())) u.searchParams.delete(k);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}

export interface WmsTileSource {
  url: string;
  layers: string;
  format: string;
}

/** The tile's size in pixels a WMS is asked for (OpenLayers' TileWMS default grid, and MBTiles' usual size). */
export const TILE_SIZE = 256;

/**
 * A WMS 1.3.0 GetMap of one tile in EPSG:3857. Its BBOX is easting then northing: 1.3.0 swaps the axes only for
 * CRSs whose own order is latitude first (EPSG:4326), which Web Mercator's is not.
 */
export function wmsTileUrl(s: WmsTileSource, z: number, x: number, y: number): string {
  const b = tileBounds3857(z, x, y);
  return withParams(s.url, {
    SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetMap', LAYERS: s.layers, STYLES: '', CRS: 'EPSG:3857',
    BBOX: b.map((v) => v.toFixed(6)).join(','), WIDTH: String(TILE_SIZE), HEIGHT: String(TILE_SIZE), FORMAT: s.format,
    TRANSPARENT: s.format === 'image/png' ? 'TRUE' : 'FALSE',
  });
}

/** What a WMTS layer's tiles need, as read from its capabilities (backend/wmts-capabilities.ts). */
export interface WmtsTileEndpoint {
  layer: string;
  style: string;
  format: string;
  matrixSet: string;
  /** Tile matrix identifiers by Web Mercator zoom (core/tiles/wmts-grid.ts). */
  matrices: Record<number, string>;
  /** A REST ResourceURL template ({TileMatrix}, {TileRow}, {TileCol}, …), preferred when the service gives one. */
  template?: string;
  /** Else the GetTile KVP address. */
  kvp?: string;
  /** Dimensions' defaults ({Time} and the like) a template names. */
  dimensions?: Record<string, string>;
}

/** A WMTS tile's address; null when the layer has no matrix at that zoom. */
export function wmtsTileUrl(e: WmtsTileEndpoint, z: number, x: number, y: number): string | null {
  const matrix = e.matrices[z];
  if (matrix === undefined) return null;
  if (e.template) {
    const values: Record<string, string> = {
      ...e.dimensions, layer: e.layer, style: e.style, tilematrixset: e.matrixSet, tilematrix: matrix, tilerow: String(y), tilecol: String(x),
    };
    const lower = Object.fromEntries(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
    return e.template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, k: string) => {
      const v = lower[k.toLowerCase()];
      return v === undefined ? whole : encodeURIComponent(v);
    });
  }
  if (!e.kvp) return null;
  return withParams(e.kvp, {
    SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: e.layer, STYLE: e.style, FORMAT: e.format,
    TILEMATRIXSET: e.matrixSet, TILEMATRIX: matrix, TILEROW: String(y), TILECOL: String(x),
  });
}
