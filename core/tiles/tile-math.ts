// Web Mercator tile arithmetic for areas kept offline (issue 30): which tiles of the XYZ scheme (row 0 at the north,
// as OpenLayers and every XYZ server number them) cover a box at zooms z0..z1, how many without listing them, each
// one's place in EPSG:3857, MBTiles' TMS row, and the box around farms with a margin. Pure.

/** Half the Web Mercator world's width in metres (EPSG:3857's extent is ±this on both axes). */
export const MERCATOR_HALF = 20037508.342789244;
/** The latitude where Web Mercator's square world ends. */
export const MERCATOR_MAX_LAT = 85.0511287798066;
/** The highest zoom an area may be kept at (OfflineArea's schema). */
export const MAX_TILE_ZOOM = 22;

export type LonLatBox = readonly [minLon: number, minLat: number, maxLon: number, maxLat: number];

/** Tiles x0..x1 by y0..y1 (both ends included) at zoom z, XYZ rows (0 at the north). */
export interface TileRect {
  z: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

export interface TileCoord {
  z: number;
  x: number;
  y: number;
}

const clampLat = (lat: number) => Math.max(-MERCATOR_MAX_LAT, Math.min(MERCATOR_MAX_LAT, lat));

/** A longitude's tile column at zoom z, as a fraction (0 at -180°, 2^z at 180°). */
export const lonToTileX = (lon: number, z: number): number => ((lon + 180) / 360) * 2 ** z;

/** A latitude's tile row at zoom z, as a fraction (0 at the north edge, 2^z at the south). */
export function latToTileY(lat: number, z: number): number {
  const r = (clampLat(lat) * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z;
}

/** The whole tiles covering [from, to) along one axis of 2^z tiles: an end exactly on a tile's edge takes no tile past it. */
function span(from: number, to: number, n: number): [number, number] {
  const a = Math.max(0, Math.min(n - 1, Math.floor(from)));
  const end = Math.ceil(to) - 1;
  return [a, Math.max(a, Math.min(n - 1, end))];
}

/** Why a box cannot be an area (crossing the antimeridian, empty, out of range), or null. */
export function boxProblem(b: LonLatBox): string | null {
  const [w, s, e, n] = b;
  if (![w, s, e, n].every(Number.isFinite)) return 'The area is not a box of numbers.';
  if (w < -180 || e > 180 || s < -90 || n > 90) return 'The area must lie within longitudes -180..180 and latitudes -90..90.';
  if (w >= e || s >= n) return 'The area must be a box with its west edge west of its east edge and its south edge south of its north edge.';
  if (s >= MERCATOR_MAX_LAT || n <= -MERCATOR_MAX_LAT) return 'The area lies beyond the poles Web Mercator maps.';
  return null;
}

/** The tiles covering a box at zoom z. */
export function tileRect(b: LonLatBox, z: number): TileRect {
  const n = 2 ** z;
  const [x0, x1] = span(lonToTileX(b[0], z), lonToTileX(b[2], z), n);
  const [y0, y1] = span(latToTileY(b[3], z), latToTileY(b[1], z), n);
  return { z, x0, x1, y0, y1 };
}

const rectCount = (r: TileRect): number => (r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1);

/**
 * How many distinct tiles cover a union of rectangles of one zoom, without listing them: along x the rectangles'
 * edges cut the grid into slabs, and in each slab the rows covered are the merged y ranges of the rectangles over it.
 * O(n² log n) for n rectangles (an account's farms: tens to hundreds).
 */
export function unionCount(rects: readonly TileRect[]): number {
  if (rects.length === 0) return 0;
  if (rects.length === 1) return rectCount(rects[0]!);
  const cuts = [...new Set(rects.flatMap((r) => [r.x0, r.x1 + 1]))].sort((a, b) => a - b);
  let total = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [from, to] = [cuts[i]!, cuts[i + 1]!];
    const ys = rects.filter((r) => r.x0 <= from && r.x1 + 1 >= to).map((r) => [r.y0, r.y1] as const).sort((a, b) => a[0] - b[0]);
    let rows = 0;
    let cur: [number, number] | null = null;
    for (const [a, b] of ys) {
      if (cur && a <= cur[1] + 1) cur[1] = Math.max(cur[1], b);
      else {
        if (cur) rows += cur[1] - cur[0] + 1;
        cur = [a, b];
      }
    }
    if (cur) rows += cur[1] - cur[0] + 1;
    total += rows * (to - from);
  }
  return total;
}

/** Tiles covering the boxes at one zoom (a tile under two boxes counted once). */
export const countAtZoom = (boxes: readonly LonLatBox[], z: number): number => unionCount(boxes.map((b) => tileRect(b, z)));

/** Tiles covering the boxes at zooms z0..z1, counted without listing them. */
export function countTiles(boxes: readonly LonLatBox[], z0: number, z1: number): number {
  let n = 0;
  for (let z = z0; z <= z1; z++) n += countAtZoom(boxes, z);
  return n;
}

/**
 * Every tile covering the boxes at zooms z0..z1, each once: by zoom, then box, row and column. A tile under an
 * earlier box of the same zoom is left out (only the boxes that overlap are compared).
 */
export function* tilesOf(boxes: readonly LonLatBox[], z0: number, z1: number): Generator<TileCoord> {
  for (let z = z0; z <= z1; z++) {
    const rects = boxes.map((b) => tileRect(b, z));
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i]!;
      const earlier = rects.slice(0, i).filter((o) => o.x0 <= r.x1 && o.x1 >= r.x0 && o.y0 <= r.y1 && o.y1 >= r.y0);
      for (let y = r.y0; y <= r.y1; y++) {
        for (let x = r.x0; x <= r.x1; x++) {
          if (earlier.some((o) => x >= o.x0 && x <= o.x1 && y >= o.y0 && y <= o.y1)) continue;
          yield { z, x, y };
        }
      }
    }
  }
}

/** MBTiles' row for an XYZ row: TMS counts rows from the south (the flip is its own inverse). */
export const tmsRow = (z: number, y: number): number => 2 ** z - 1 - y;

/** A tile's box in EPSG:3857 metres: [minX, minY, maxX, maxY]. */
export function tileBounds3857(z: number, x: number, y: number): [number, number, number, number] {
  const size = (2 * MERCATOR_HALF) / 2 ** z;
  const minX = -MERCATOR_HALF + x * size;
  const maxY = MERCATOR_HALF - y * size;
  return [minX, maxY - size, minX + size, maxY];
}

/** A tile as one safe integer (z < 32, x and y < 2^22): a key for sets of tiles done. */
export const tileKey = (z: number, x: number, y: number): number => (z * 2 ** 22 + x) * 2 ** 22 + y;

/** Metres per degree of latitude (and of longitude at the equator), near enough for a margin. */
const METRES_PER_DEGREE = 111_320;

/** A box grown by `metres` on every side (clamped to the world; a margin is no survey). */
export function withMargin(b: LonLatBox, metres: number): [number, number, number, number] {
  const dLat = metres / METRES_PER_DEGREE;
  const midLat = (b[1] + b[3]) / 2;
  const dLon = metres / (METRES_PER_DEGREE * Math.max(0.01, Math.cos((midLat * Math.PI) / 180)));
  return [Math.max(-180, b[0] - dLon), Math.max(-90, b[1] - dLat), Math.min(180, b[2] + dLon), Math.min(90, b[3] + dLat)];
}

/** The box around boxes (null for none). */
export function enclosing(boxes: readonly LonLatBox[]): [number, number, number, number] | null {
  if (boxes.length === 0) return null;
  return [
    Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3])),
  ];
}

/** The highest zoom from z0 up to z1 whose tiles, with all below it, stay within `cap` (null: not even z0's). */
export function highestZoomWithin(boxes: readonly LonLatBox[], z0: number, z1: number, cap: number): number | null {
  let n = 0;
  let best: number | null = null;
  for (let z = z0; z <= z1; z++) {
    n += countAtZoom(boxes, z);
    if (n > cap) break;
    best = z;
  }
  return best;
}
