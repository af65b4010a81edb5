// Rings of the world backdrop that cross the antimeridian (Chukotka, Fiji, Antarctica in Natural Earth's land): their
// data steps from 179.9° to -180° within one edge, and drawn in Web Mercator that edge is a line across the whole
// world. Unwrapped (each longitude within 180° of the one before, by adding or taking 360°), the ring is one shape
// that runs past 180°, which OpenLayers draws in the next world's copy too, where it belongs. A ring that goes right
// round a pole (Antarctica) ends 360° from where it began: it is closed along the pole's side of the map instead.

type Position = number[];

/** Web Mercator's edge: a ring closed around a pole runs along it (90° itself is infinitely far in this projection). */
const MERCATOR_MAX_LAT = 85.0511287798066;

/** The ring with no edge longer than 180° of longitude; closed as it was (its first position repeated last). */
export function unwrapRing(ring: readonly Position[]): Position[] {
  if (ring.length < 2) return ring.map((p) => [...p]);
  const out: Position[] = [[...ring[0]!]];
  let shift = 0;
  for (let i = 1; i < ring.length; i++) {
    const d = ring[i]![0]! - ring[i - 1]![0]!;
    if (d > 180) shift -= 360;
    else if (d < -180) shift += 360;
    out.push([ring[i]![0]! + shift, ...ring[i]!.slice(1)]);
  }
  if (shift !== 0) {
    // Round a pole: from where the ring ended, along the pole's edge of the map back above where it began.
    const south = ring.reduce((s, p) => s + p[1]!, 0) < 0;
    const edge = south ? -MERCATOR_MAX_LAT : MERCATOR_MAX_LAT;
    const first = out[0]!;
    const last = out[out.length - 1]!;
    out.push([last[0]!, edge], [first[0]!, edge], [...first]);
  }
  return out;
}

const shifted = (polygon: Position[][], dx: number): Position[][] => polygon.map((ring) => ring.map(([x, ...rest]) => [x! + dx, ...rest]));

/**
 * A GeoJSON Polygon's or MultiPolygon's rings unwrapped (unwrapRing), as a MultiPolygon; any other geometry as it is.
 * A polygon that now runs past 180° (or -180°) comes with a copy of itself a world to the west (or east): OpenLayers
 * draws the next world's copy of a layer only when the view reaches past the world's edge, and zoomed out to the
 * whole world the map would otherwise miss Chukotka's tip at its left edge.
 */
export function unwrapGeometry<G extends { type: string; coordinates?: unknown }>(g: G): G | { type: 'MultiPolygon'; coordinates: Position[][][] } {
  if (g.type !== 'Polygon' && g.type !== 'MultiPolygon') return g;
  const polygons = g.type === 'Polygon' ? [g.coordinates as Position[][]] : g.coordinates as Position[][][];
  const out: Position[][][] = [];
  for (const polygon of polygons) {
    const unwrapped = polygon.map(unwrapRing);
    out.push(unwrapped);
    const xs = unwrapped[0]?.map((p) => p[0]!) ?? [];
    if (Math.max(...xs) > 180) out.push(shifted(unwrapped, -360));
    if (Math.min(...xs) < -180) out.push(shifted(unwrapped, 360));
  }
  return { type: 'MultiPolygon', coordinates: out };
}
