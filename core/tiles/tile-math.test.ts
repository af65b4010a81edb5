// Web Mercator tile arithmetic: each function against values worked out independently (gdal2tiles' and
// OpenStreetMap's published tile numbers), and the counts against listing the tiles one by one.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  boxProblem, countTiles, enclosing, highestZoomWithin, latToTileY, lonToTileX, MERCATOR_HALF, tileBounds3857, tileKey, tileRect, tilesOf, tmsRow,
  unionCount, withMargin, type LonLatBox, type TileRect,
} from './tile-math.ts';

describe('tile numbers', () => {
  it("place a point in OpenStreetMap's tile of it", () => {
    // Berlin's Brandenburg Gate, 13.3777 E 52.5163 N: tile 12/2200/1343 on tile.openstreetmap.org.
    expect(Math.floor(lonToTileX(13.3777, 12))).toBe(2200);
    expect(Math.floor(latToTileY(52.5163, 12))).toBe(1343);
    expect(lonToTileX(-180, 3)).toBe(0);
    expect(lonToTileX(180, 3)).toBe(8);
    expect(latToTileY(0, 5)).toBeCloseTo(16, 10);
    // Beyond Web Mercator's square: clamped to its edge.
    expect(latToTileY(89.9, 2)).toBeCloseTo(0, 6);
    expect(latToTileY(-89.9, 2)).toBeCloseTo(4, 6);
  });

  it('cover a box with whole tiles, an edge exactly on a tile boundary taking no tile beyond it', () => {
    expect(tileRect([-180, -85, 180, 85], 0)).toEqual({ z: 0, x0: 0, x1: 0, y0: 0, y1: 0 });
    expect(tileRect([-180, -85, 180, 85], 2)).toEqual({ z: 2, x0: 0, x1: 3, y0: 0, y1: 3 });
    // 0° is the edge between columns 1 and 2 at zoom 2: a box ending there stays in column 1.
    expect(tileRect([-90, 0.1, 0, 10], 2)).toEqual({ z: 2, x0: 1, x1: 1, y0: 1, y1: 1 });
    expect(tileRect([-90, 0.1, 0.0001, 10], 2).x1).toBe(2);
    // A tiny box is one tile.
    expect(tileRect([13.3777, 52.5163, 13.3778, 52.5164], 12)).toEqual({ z: 12, x0: 2200, x1: 2200, y0: 1343, y1: 1343 });
  });

  it('flip rows between XYZ and TMS (MBTiles), the flip being its own inverse', () => {
    expect(tmsRow(0, 0)).toBe(0);
    expect(tmsRow(3, 0)).toBe(7);
    expect(tmsRow(12, 1343)).toBe(2752);
    expect(tmsRow(12, tmsRow(12, 1343))).toBe(1343);
  });

  it("give a tile's EPSG:3857 box", () => {
    expect(tileBounds3857(0, 0, 0)).toEqual([-MERCATOR_HALF, -MERCATOR_HALF, MERCATOR_HALF, MERCATOR_HALF]);
    expect(tileBounds3857(1, 1, 0)).toEqual([0, 0, MERCATOR_HALF, MERCATOR_HALF]);
    const [minX, minY, maxX, maxY] = tileBounds3857(12, 2200, 1343);
    expect(maxX - minX).toBeCloseTo(9783.94, 2);
    expect(maxY - minY).toBeCloseTo(9783.94, 2);
    expect(minX).toBeCloseTo(1487158.82, 1);
  });

  it('key tiles uniquely up to zoom 22', () => {
    const n = 2 ** 22 - 1;
    expect(new Set([tileKey(22, n, n), tileKey(22, n, n - 1), tileKey(21, n, n), tileKey(0, 0, 0)]).size).toBe(4);
    expect(Number.isSafeInteger(tileKey(22, n, n))).toBe(true);
  });
});

describe('counting', () => {
  it('counts a box at zooms without listing, the same as the list', () => {
    const farm: LonLatBox = [13.30, 52.48, 13.45, 52.56];
    const listed = [...tilesOf([farm], 10, 15)].length;
    expect(countTiles([farm], 10, 15)).toBe(listed);
    expect(listed).toBeGreaterThan(100);
  });

  it('counts a tile under two boxes once, and lists it once', () => {
    const a: LonLatBox = [10, 50, 10.2, 50.1];
    const b: LonLatBox = [10.1, 50.05, 10.3, 50.2];
    const far: LonLatBox = [-3.7, 40.4, -3.6, 40.45];
    const tiles = [...tilesOf([a, b, far], 8, 14)];
    expect(new Set(tiles.map((t) => tileKey(t.z, t.x, t.y))).size).toBe(tiles.length);
    expect(countTiles([a, b, far], 8, 14)).toBe(tiles.length);
    expect(countTiles([a, b], 14, 14)).toBeLessThan(countTiles([a], 14, 14) + countTiles([b], 14, 14));
  });

  it('counts any union of rectangles as listing its cells does', () => {
    const rect = fc.record({ x0: fc.integer({ min: 0, max: 20 }), w: fc.integer({ min: 0, max: 6 }), y0: fc.integer({ min: 0, max: 20 }), h: fc.integer({ min: 0, max: 6 }) })
      .map(({ x0, w, y0, h }): TileRect => ({ z: 5, x0, x1: x0 + w, y0, y1: y0 + h }));
    fc.assert(fc.property(fc.array(rect, { maxLength: 6 }), (rects) => {
      const cells = new Set<string>();
      for (const r of rects) for (let x = r.x0; x <= r.x1; x++) for (let y = r.y0; y <= r.y1; y++) cells.add(`${x},${y}`);
      expect(unionCount(rects)).toBe(cells.size);
    }));
  });

  it('finds the highest zoom within a cap', () => {
    const farm: LonLatBox = [13.30, 52.48, 13.45, 52.56];
    const z = highestZoomWithin([farm], 10, 18, 1000)!;
    expect(countTiles([farm], 10, z)).toBeLessThanOrEqual(1000);
    expect(countTiles([farm], 10, z + 1)).toBeGreaterThan(1000);
    expect(highestZoomWithin([[-180, -85, 180, 85]], 5, 6, 100)).toBeNull();
  });
});

describe('areas', () => {
  it('grow a box by a margin in metres, wider in degrees of longitude away from the equator', () => {
    const [w, s, e, n] = withMargin([10, 50, 10.1, 50.1], 1000);
    expect(50 - s).toBeCloseTo(1000 / 111_320, 8);
    expect(n - 50.1).toBeCloseTo(1000 / 111_320, 8);
    expect(10 - w).toBeCloseTo(1000 / (111_320 * Math.cos((50.05 * Math.PI) / 180)), 8);
    expect(e - 10.1).toBeCloseTo(10 - w, 10);
    expect(withMargin([179.99, 89.99, 180, 90], 5000)).toEqual([expect.any(Number), expect.any(Number), 180, 90]);
  });

  it('enclose boxes', () => {
    expect(enclosing([])).toBeNull();
    expect(enclosing([[1, 2, 3, 4], [-1, 3, 2, 8]])).toEqual([-1, 2, 3, 8]);
  });

  it('refuse boxes that are no area', () => {
    expect(boxProblem([1, 2, 3, 4])).toBeNull();
    expect(boxProblem([3, 2, 1, 4])).toMatch(/west edge west of its east edge/);
    expect(boxProblem([170, 2, -170, 4])).toMatch(/west edge west/);
    expect(boxProblem([1, 4, 3, 4])).toMatch(/south edge south/);
    expect(boxProblem([1, 86, 3, 89])).toMatch(/beyond the poles/);
    expect(boxProblem([Number.NaN, 1, 2, 3])).toMatch(/numbers/);
    expect(boxProblem([-181, 1, 2, 3])).toMatch(/within longitudes/);
  });
});
