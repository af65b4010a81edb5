// An online layer with an area kept offline (core/api-layers.ts OfflineArea): its OpenLayers tile source (XYZ,
// TileWMS or WMTS, as features/layers/build-layer.ts makes it) loads the tiles inside the area and its zooms from the
// area's file — at the page session's bytes path the host answers (offlineTiles), on the page's own origin — and
// every other tile from the network as before. A tile the file lacks (the server had none, or the area is several
// farms and this tile lies between them) is taken from the network after all: online it shows, offline it fails as
// any online tile does. So the layer works offline within its area and is unchanged elsewhere.
//
// Past the area's deepest zoom, within its box, a tile the network does not give (offline) is the area's deepest
// ancestor of it, its part scaled up — as every GIS overzooms. OpenLayers would draw a parent tile by itself, but only
// one still in its cache: a map opened (after a restart) zoomed in past the area showed nothing at all.
//
// Only sources on Web Mercator's tile pyramid (256-pixel tiles from the world's top-left corner, as XYZ, TileWMS's
// default grid and a GoogleMapsCompatible WMTS set are) can be read so: another grid's tiles are not the file's.
import type TileImage from 'ol/source/TileImage.js';
import type ImageTile from 'ol/ImageTile.js';
import type TileGrid from 'ol/tilegrid/TileGrid.js';
import { equivalent, get as getProjection } from 'ol/proj.js';
import type { MapLayer } from '../../../core/api-layers.ts';
import type { AppApi } from '../../backend.ts';
import { MERCATOR_HALF, tileRect, type TileCoord } from '../../../core/tiles/tile-math.ts';

export interface OfflineEnv {
  api: Pick<AppApi, 'offlineTiles'>;
  /** A bytes path the host answered, as a URL on the page's origin (renderer/bytes-url.ts). */
  bytesUrl(path: string): string;
}

/** Web Mercator's resolution at zoom 0, metres per pixel of a 256-pixel tile. */
const ZOOM0_RESOLUTION = (2 * MERCATOR_HALF) / 256;

/**
 * The XYZ tile (row 0 at the north) of an OpenLayers tile coordinate of `grid`, or null when the grid is not Web
 * Mercator's pyramid at that level. OpenLayers numbers rows from the grid's top-left origin, as XYZ does.
 */
export function xyzOf(grid: TileGrid, coord: readonly number[]): TileCoord | null {
  const [level, x, y] = coord as [number, number, number];
  const size = grid.getTileSize(level);
  if ((Array.isArray(size) ? size[0] !== 256 || size[1] !== 256 : size !== 256)) return null;
  const zoom = Math.log2(ZOOM0_RESOLUTION / grid.getResolution(level));
  const z = Math.round(zoom);
  if (Math.abs(zoom - z) > 0.01 || z < 0 || z > 22) return null;
  const [ox, oy] = grid.getOrigin(level) as [number, number];
  if (Math.abs(ox + MERCATOR_HALF) > 1 || Math.abs(oy - MERCATOR_HALF) > 1) return null;
  return { z, x, y };
}

/** Whether any level of `grid` is one of Web Mercator's zooms. */
export function onPyramid(grid: TileGrid): boolean {
  for (let level = grid.getMinZoom(); level <= grid.getMaxZoom(); level++) if (xyzOf(grid, [level, 0, 0])) return true;
  return false;
}

/** Whether a tile lies within an area's box and zooms. */
export function inArea(area: NonNullable<MapLayer['offline']>, t: TileCoord): boolean {
  if (t.z < area.minZoom || t.z > area.maxZoom) return false;
  const r = tileRect(area.bbox, t.z);
  return t.x >= r.x0 && t.x <= r.x1 && t.y >= r.y0 && t.y <= r.y1;
}

/**
 * Where tile `t` lies in its ancestor at zoom `z` (< t.z): the ancestor, and the square of it (pixels of a 256-pixel
 * tile, from its top-left corner) that is `t`.
 */
export function ancestorPart(t: TileCoord, z: number): { ancestor: TileCoord; x: number; y: number; size: number } {
  const d = t.z - z;
  const ancestor = { z, x: Math.floor(t.x / 2 ** d), y: Math.floor(t.y / 2 ** d) };
  const size = 256 / 2 ** d;
  return { ancestor, x: (t.x - ancestor.x * 2 ** d) * size, y: (t.y - ancestor.y * 2 ** d) * size, size };
}

/** Deeper than the area's deepest zoom, under its box: a tile the area's ancestors can stand in for. */
export function belowArea(area: NonNullable<MapLayer['offline']>, t: TileCoord): boolean {
  return t.z > area.maxZoom && inArea(area, ancestorPart(t, area.maxZoom).ancestor);
}

/** Ancestor tiles of the area kept at once for overzoomed tiles (withOfflineArea). */
const ANCESTORS_KEPT = 64;

/** The bytes path of a tile from the host's template. */
export const tilePath = (template: string, t: TileCoord): string =>
  template.replace('{z}', String(t.z)).replace('{x}', String(t.x)).replace('{y}', String(t.y));

/**
 * Makes `source` load the tiles of `l`'s area from its file (see the header); false when `l` has no area or the
 * source's grid is not Web Mercator's pyramid (the source is then left as it was, online only).
 */
export function withOfflineArea(l: MapLayer, source: TileImage, env: OfflineEnv): boolean {
  const area = l.offline;
  const mercator = getProjection('EPSG:3857')!;
  // A source in another projection (a WGS84 WMTS set) is drawn reprojected: its tiles are not Web Mercator's.
  const own = source.getProjection();
  const grid = area && (!own || equivalent(own, mercator)) ? source.getTileGridForProjection(mercator) : null;
  if (!area || !grid || !onPyramid(grid)) return false;
  const online = source.getTileLoadFunction();
  // Asked once, when the first tile of the area is wanted; an answer of null (the area since removed): online only.
  let template: Promise<string | null> | null = null;
  const templateOf = () => (template ??= env.api.offlineTiles({ layer: l.id }).then((r) => r?.template ?? null, () => null));
  /** A tile of the file, or null when the file has none there (or cannot be read now: replaced meanwhile). */
  const fromFile = async (t: TileCoord): Promise<Blob | null> => {
    const tpl = await templateOf();
    if (!tpl) return null;
    try {
      const res = await fetch(env.bytesUrl(tilePath(tpl, t)));
      return res.ok ? await res.blob() : null;
    } catch {
      return null;
    }
  };
  // An ancestor stands in for many tiles (4^k of them k zooms past the area): read from the file once, not per tile.
  const ancestors = new Map<string, Promise<Blob | null>>();
  const ancestorFromFile = (t: TileCoord): Promise<Blob | null> => {
    const key = `${t.z}/${t.x}/${t.y}`;
    let blob = ancestors.get(key);
    if (!blob) {
      blob = fromFile(t);
      ancestors.set(key, blob);
      // The oldest forgotten first: enough for the tiles of a screen, bounded however long the map is panned.
      if (ancestors.size > ANCESTORS_KEPT) ancestors.delete(ancestors.keys().next().value!);
    }
    return blob;
  };
  const show = (image: HTMLImageElement, blob: Blob) => {
    const url = URL.createObjectURL(blob);
    const revoke = () => URL.revokeObjectURL(url);
    image.addEventListener('load', revoke, { once: true });
    image.addEventListener('error', revoke, { once: true });
    image.src = url;
  };
  source.setTileLoadFunction((tile, src) => {
    const t = xyzOf(grid, tile.getTileCoord());
    const image = (tile as ImageTile).getImage() as HTMLImageElement;
    if (t && inArea(area, t)) {
      void fromFile(t).then((blob) => (blob ? show(image, blob) : online(tile, src)));
      return;
    }
    if (!t || !belowArea(area, t)) {
      online(tile, src);
      return;
    }
    // The network's tile when it gives one (a sharper one, online), else the area's ancestor scaled up. Tried in an
    // image of its own: the tile's image failing would be the tile failing, with nothing drawn.
    const probe = new Image();
    probe.onload = () => online(tile, src);
    probe.onerror = () => void overzoomed(t, area, ancestorFromFile).then((blob) => (blob ? show(image, blob) : online(tile, src)));
    probe.src = src;
  });
  return true;
}

/**
 * Tile `t` cut from its deepest ancestor the area's file has (from its deepest zoom up to its shallowest) and scaled
 * up to a whole tile, as a PNG; null when the file has none of its ancestors.
 */
async function overzoomed(t: TileCoord, area: NonNullable<MapLayer['offline']>, fromFile: (t: TileCoord) => Promise<Blob | null>): Promise<Blob | null> {
  for (let z = area.maxZoom; z >= area.minZoom; z--) {
    const part = ancestorPart(t, z);
    const blob = await fromFile(part.ancestor);
    if (!blob) continue;
    try {
      const bitmap = await createImageBitmap(blob, part.x, part.y, part.size, part.size);
      const canvas = new OffscreenCanvas(256, 256);
      const ctx = canvas.getContext('2d')!;
      // Smoothed, as OpenLayers scales a tile: the pixels of a deep zoom blown up look as they do in every GIS.
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(bitmap, 0, 0, 256, 256);
      bitmap.close();
      return await canvas.convertToBlob({ type: 'image/png' });
    } catch {
      return null;
    }
  }
  return null;
}
