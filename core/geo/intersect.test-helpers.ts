// What the self-intersection tests hold findSelfIntersection to: an all-pairs reference written from the rule,
// not from the sweep, and polygons that are hard for a sweep (every one valid, on an integer grid, so that
// plain floating-point arithmetic is exact on them and the reference can use it).
import type { PolygonCoords, Position } from './types.ts';

/** Sign of the cross product (p - o) × (q - o): > 0 when q is left of o→p. */
export type Side = (ox: number, oy: number, px: number, py: number, qx: number, qy: number) => number;

/** Plain floating point: exact on small integer grids. */
export const floatSide: Side = (ox, oy, px, py, qx, qy) => Math.sign((px - ox) * (qy - oy) - (py - oy) * (qx - ox));

/**
 * With `focus`, only pairs where one segment has an endpoint at one of those points are tested: enough after
 * moving those vertices in a polygon known to be valid, as every pair that changed has such a segment.
 *
 * Whether any two segments of the polygon meet where the rule forbids it, testing every pair: consecutive
 * segments of a ring (repeated positions skipped, the last wrapping to the first, an unclosed ring closed) may
 * share their common vertex and nothing more; any other two may not share a point.
 */
export function referenceHasContact(coords: PolygonCoords, side: Side = floatSide, focus?: readonly Position[]): boolean {
  const ax: number[] = [];
  const ay: number[] = [];
  const bx: number[] = [];
  const by: number[] = [];
  const firstOf: number[] = []; // the ring's first and last segment, for each segment
  const lastOf: number[] = [];
  for (const ring of coords) {
    const closed = ring.length > 0 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1];
    const count = ring.length < 2 ? 0 : closed ? ring.length - 1 : ring.length;
    const first = ax.length;
    for (let k = 0; k < count; k++) {
      const a = ring[k]!;
      const b = ring[(k + 1) % ring.length]!;
      if (a[0] === b[0] && a[1] === b[1]) continue;
      ax.push(a[0]!); ay.push(a[1]!); bx.push(b[0]!); by.push(b[1]!);
    }
    const last = ax.length - 1;
    for (let s = first; s <= last; s++) {
      firstOf.push(first);
      lastOf.push(last);
    }
  }
  // Consecutive in one ring, the last wrapping to the first (s < t).
  const adjacent = (s: number, t: number) => firstOf[s] === firstOf[t] && (t === s + 1 || (s === firstOf[s] && t === lastOf[s]));
  const n = ax.length;
  const on = (s: number, x: number, y: number) =>
    side(ax[s]!, ay[s]!, bx[s]!, by[s]!, x, y) === 0 &&
    Math.min(ax[s]!, bx[s]!) <= x && x <= Math.max(ax[s]!, bx[s]!) && Math.min(ay[s]!, by[s]!) <= y && y <= Math.max(ay[s]!, by[s]!);
  const touches = (s: number, t: number): boolean => {
    if (s > t) [s, t] = [t, s];
    if (Math.max(ax[t]!, bx[t]!) < Math.min(ax[s]!, bx[s]!) || Math.max(ax[s]!, bx[s]!) < Math.min(ax[t]!, bx[t]!)) return false;
    if (Math.max(ay[t]!, by[t]!) < Math.min(ay[s]!, by[s]!) || Math.max(ay[s]!, by[s]!) < Math.min(ay[t]!, by[t]!)) return false;
    if (adjacent(s, t)) {
      // Allowed unless collinear and overlapping along the line by more than a point.
      if (side(ax[s]!, ay[s]!, bx[s]!, by[s]!, ax[t]!, ay[t]!) !== 0 || side(ax[s]!, ay[s]!, bx[s]!, by[s]!, bx[t]!, by[t]!) !== 0) return false;
      const [s0, s1, t0, t1] = ax[s] !== bx[s] ? [ax[s]!, bx[s]!, ax[t]!, bx[t]!] : [ay[s]!, by[s]!, ay[t]!, by[t]!];
      return Math.min(Math.max(s0, s1), Math.max(t0, t1)) > Math.max(Math.min(s0, s1), Math.min(t0, t1));
    }
    const d1 = side(ax[s]!, ay[s]!, bx[s]!, by[s]!, ax[t]!, ay[t]!);
    const d2 = side(ax[s]!, ay[s]!, bx[s]!, by[s]!, bx[t]!, by[t]!);
    const d3 = side(ax[t]!, ay[t]!, bx[t]!, by[t]!, ax[s]!, ay[s]!);
    const d4 = side(ax[t]!, ay[t]!, bx[t]!, by[t]!, bx[s]!, by[s]!);
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    return on(s, ax[t]!, ay[t]!) || on(s, bx[t]!, by[t]!) || on(t, ax[s]!, ay[s]!) || on(t, bx[s]!, by[s]!);
  };
  const at = (x: number, y: number) => focus!.some((p) => p[0] === x && p[1] === y);
  const first = focus ? ax.map((_, s) => s).filter((s) => at(ax[s]!, ay[s]!) || at(bx[s]!, by[s]!)) : ax.map((_, s) => s);
  for (const s of first) {
    for (let t = focus ? 0 : s + 1; t < n; t++) if (t !== s && touches(s, t)) return true;
  }
  return false;
}

const close = (ring: Position[]): Position[] => [...ring, [ring[0]![0]!, ring[0]![1]!]];

/** A comb: a spine at x = 0..1,000 and `teeth` teeth reaching to x = 1,000,000, so every long edge spans one x-range. */
export function combPolygon(teeth: number): PolygonCoords {
  const ring: Position[] = [[0, 0]];
  for (let i = 0; i < teeth; i++) ring.push([1000, 40 * i], [1_000_000, 40 * i], [1_000_000, 40 * i + 20], [1000, 40 * i + 20]);
  ring.push([0, 40 * teeth]);
  return [close(ring)];
}

/** A star of `spikes` long thin spikes (tips 2,000,000 from the centre, bases 50,000), rounded to integers. */
export function spikyStar(spikes: number): PolygonCoords {
  const ring: Position[] = [];
  for (let i = 0; i < spikes; i++) {
    const a = (2 * Math.PI * i) / spikes;
    const b = (2 * Math.PI * (i + 0.5)) / spikes;
    ring.push([Math.round(50_000 * Math.cos(a)), Math.round(50_000 * Math.sin(a))]);
    ring.push([Math.round(2_000_000 * Math.cos(b)), Math.round(2_000_000 * Math.sin(b))]);
  }
  return [close(ring)];
}

/** A spiral strip of `turns` turns, `perArm` positions out along one edge and as many back along the other. */
export function spiralStrip(turns: number, perArm: number): PolygonCoords {
  const arm = (offset: number): Position[] => Array.from({ length: perArm }, (_, i) => {
    const t = (2 * Math.PI * turns * i) / (perArm - 1);
    const r = 50_000 + (20_000 * t) / (2 * Math.PI) - offset;
    return [Math.round(r * Math.cos(t)), Math.round(r * Math.sin(t))];
  });
  return [close([...arm(0), ...arm(8000).reverse()])];
}
