// An online layer with an area kept offline (core/api-layers.ts OfflineArea): its OpenLayers tile source (XYZ,
// TileWMS or WMTS, as features/layers/build-layer.ts makes it) loads the tiles inside the area and its zooms from the
// area's file — at the page session's bytes path the host answers (offlineTiles), on the page's own origin — and
// every other tile from the network as before. A tile the file lacks (the server had none, or the area is several
// farms and this tile lies between them) is taken from the network after all: online it shows, offline it fails as
// any online tile does. So the layer works offline within its area and is unchanged elsewhere.
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
  source.setTileLoadFunction((tile, src) => {
    const t = xyzOf(grid, tile.getTileCoord());
    if (!t || !inArea(area, t)) {
      online(tile, src);
      return;
    }
    template ??= env.api.offlineTiles({ layer: l.id }).then((r) => r?.template ?? null, () => null);
    void template.then(async (tpl) => {
      const image = (tile as ImageTile).getImage() as HTMLImageElement;
      if (tpl) {
        try {
          const res = await fetch(env.bytesUrl(tilePath(tpl, t)));
          if (res.ok) {
            const url = URL.createObjectURL(await res.blob());
            const revoke = () => URL.revokeObjectURL(url);
            image.addEventListener('load', revoke, { once: true });
            image.addEventListener('error', revoke, { once: true });
            image.src = url;
            return;
          }
        } catch {
          // the file unreadable now (replaced meanwhile): the network's tile
        }
      }
      online(tile, src);
    });
  });
  return true;
}
