import { describe, expect, it } from 'vitest';
import { sameShape, sameShapeMargin } from './same-shape.ts';
import type { PolygonCoords } from './types.ts';

/** examples/fields.geojson's Haza del Pozo, about 20 ha near Seville. */
const POZO: PolygonCoords = [[[-5.408, 37.587], [-5.4077, 37.5835], [-5.4016, 37.5842], [-5.4021, 37.5876], [-5.408, 37.587]]];
/** One metre is about 1.13e-5° of longitude and 9e-6° of latitude there. */
const M_LON = 1 / (111_195 * Math.cos((37.585 * Math.PI) / 180));
const M_LAT = 1 / 111_195;
const shift = (c: PolygonCoords, dx: number, dy: number): PolygonCoords => c.map((r) => r.map(([x, y]) => [x! + dx, y! + dy]));

describe('sameShape', () => {
  it('takes the same field however its file writes it: another start vertex, the other direction, rounding, a vertex along an edge', () => {
    expect(sameShape(POZO, POZO)).toBe(true);
    const ring = POZO[0]!.slice(0, -1);
    const rotated = [...ring.slice(2), ...ring.slice(0, 2)];
    expect(sameShape(POZO, [[...rotated, rotated[0]!]])).toBe(true);
    expect(sameShape(POZO, [[...POZO[0]!].reverse()])).toBe(true);
    // KML's and a Shapefile's doubles, and 6 decimals: centimetres.
    expect(sameShape(POZO, POZO.map((r) => r.map(([x, y]) => [+(x! + 3e-7).toFixed(6), +(y! - 2e-7).toFixed(6), 120])))).toBe(true);
    const a = ring[0]!;
    const b = ring[1]!;
    expect(sameShape(POZO, [[a, [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2], ...ring.slice(1), a]])).toBe(true);
  });

  it('tells apart fields more than half a metre apart anywhere', () => {
    expect(sameShape(POZO, shift(POZO, 0.3 * M_LON, 0))).toBe(true);
    expect(sameShape(POZO, shift(POZO, 0.8 * M_LON, 0))).toBe(false);
    expect(sameShape(POZO, shift(POZO, 0, 0.8 * M_LAT))).toBe(false);
    // One corner moved 2 m out.
    const moved = POZO.map((r) => r.map((p, i) => (i === 2 ? [p[0]! + 2 * M_LON, p[1]!] : p)));
    expect(sameShape(POZO, moved)).toBe(false);
    expect(sameShape(POZO, moved, 3)).toBe(true);
  });

  it('tells apart a field with a hole from the same outline without it, and a neighbour sharing an edge', () => {
    const hole = [[-5.405, 37.585], [-5.405, 37.586], [-5.404, 37.586], [-5.404, 37.585], [-5.405, 37.585]];
    expect(sameShape(POZO, [POZO[0]!, hole])).toBe(false);
    expect(sameShape([POZO[0]!, hole], [POZO[0]!, hole])).toBe(true);
    const square = [[[0, 0], [0.001, 0], [0.001, 0.001], [0, 0.001], [0, 0]]];
    expect(sameShape(square, [[[0.001, 0], [0.002, 0], [0.002, 0.001], [0.001, 0.001], [0.001, 0]]])).toBe(false);
    // The same box, another shape inside it (a triangle of the square's corners).
    expect(sameShape(square, [[[0, 0], [0.001, 0], [0, 0.001], [0.001, 0.001], [0, 0]]])).toBe(false);
  });

  it('is false for empty shapes, and gives the index a margin of the tolerance in degrees', () => {
    expect(sameShape([], POZO)).toBe(false);
    expect(sameShape([[]], POZO)).toBe(false);
    const m = sameShapeMargin([-5.41, 37.58, -5.40, 37.59]);
    expect(m.lat).toBeCloseTo(0.5 * M_LAT, 9);
    expect(m.lon).toBeGreaterThan(0.5 * M_LON * 0.999);
    expect(m.lon).toBeLessThan(0.5 * M_LON * 1.001);
  });
});
