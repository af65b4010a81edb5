// Which shape is under a click, on the shapes' exact geometry: the smallest one containing the point (a parcel
// drawn inside another is the one meant), else the nearest whose outline is within the tolerance. Distances are in
// screen pixels of a Web Mercator map, where a degree of latitude is 1/cos(latitude) degrees of longitude long.
import { pointInRing } from './contains.ts';
import type { Position } from './types.ts';

export interface Pickable { geometry: { type: string; coordinates: unknown } }

function polygonsOf(g: Pickable['geometry']): Position[][][] {
  if (g.type === 'Polygon') return [g.coordinates as Position[][]];
  if (g.type === 'MultiPolygon') return g.coordinates as Position[][][];
  return [];
}

function ringArea(ring: Position[]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return Math.abs(a / 2);
}

/**
 * The shape under `at` ([lon, lat]) among `shapes`: containing it (holes excluded; the smallest such), else the
 * nearest within `tolerance` pixels of `pixel` degrees of longitude. null when none.
 */
export function pickShape<T extends Pickable>(shapes: readonly T[], at: Position, pixel: number, tolerance: number): T | null {
  const k = Math.cos((at[1]! * Math.PI) / 180);
  // To pixels: across, a pixel is `pixel` degrees; up and down, `pixel` × cos(latitude) degrees.
  const px = (p: Position): [number, number] => [(p[0]! - at[0]!) / pixel, (p[1]! - at[1]!) / (pixel * k)];
  let inside: T | null = null;
  let insideArea = Infinity;
  let near: T | null = null;
  let nearD = tolerance;
  for (const s of shapes) {
    for (const poly of polygonsOf(s.geometry)) {
      if (poly[0] && pointInRing(at, poly[0]) && !poly.slice(1).some((h) => pointInRing(at, h))) {
        const a = ringArea(poly[0]);
        if (a < insideArea) { inside = s; insideArea = a; }
      }
      for (const ring of poly) {
        for (let i = 0; i + 1 < ring.length; i++) {
          const [ax, ay] = px(ring[i]!);
          const [bx, by] = px(ring[i + 1]!);
          const dx = bx - ax;
          const dy = by - ay;
          const len = dx * dx + dy * dy;
          const t = len === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len));
          const d = Math.hypot(ax + t * dx, ay + t * dy);
          if (d <= nearD) { near = s; nearD = d; }
        }
      }
    }
  }
  return inside ?? near;
}
