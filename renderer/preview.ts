// What the app shows before saving, computed by the service's own core/ functions so that it is what the service
// will store: a drawn polygon's geodesic hectares (core/geo/area.ts), and a hectare point's square with the checks the
// service runs on a Point parcel (core/parcels/point.ts).
import { polygonHectares } from '../core/geo/area.ts';
import { checkPoint } from '../core/parcels/point.ts';
import { checkPolygon } from '../core/parcels/polygon.ts';
import { reporter } from '../core/parcels/problems.ts';
import type { PolygonCoords } from '../core/geo/types.ts';

export interface PointPreview {
  square: PolygonCoords | null;
  /** Why the service would refuse it (over the limit, a square reaching a pole or the antimeridian…). */
  problems: string[];
}

export function pointPreview(point: [number, number], hectares: number, limit: number): PointPreview {
  const r = reporter(0, 'The point');
  const checked = checkPoint(point, { metadata: { hectares } }, r, '', limit);
  return { square: checked?.square ?? null, problems: r.problems.map((p) => p.message) };
}

export type LonLat = [number, number];

/** The ring closed (its first vertex repeated last), as GeoJSON wants it. */
export const closeRing = (ring: LonLat[]): LonLat[] => (ring.length ? [...ring, ring[0]!] : ring);

/** Hectares of a polygon being drawn: its vertices, not closed; none below three. */
export const draftHectares = (ring: LonLat[]): number => (ring.length >= 3 ? polygonHectares([closeRing(ring)]) : 0);

/**
 * Why the service would refuse the polygon being drawn, in its words (a ring crossing itself, a vertex off the
 * globe…), the account's limit aside (the panel says that one with the live area); none below three vertices.
 */
export function draftProblems(ring: LonLat[]): string[] {
  // While drawing, the sketch's moving vertex sits on the last one clicked until the pointer moves: two clicks and
  // that copy are a line, not a ring that crosses itself. Repeats side by side are one vertex here.
  ring = ring.filter((p, i) => i === 0 || p[0] !== ring[i - 1]![0] || p[1] !== ring[i - 1]![1]);
  if (ring.length < 3) return [];
  const r = reporter(0, 'The polygon');
  checkPolygon([closeRing(ring)], r, 'geometry.coordinates', Infinity);
  return r.problems.map((p) => p.message);
}

/**
 * Hectares as a person types them: a decimal comma is a decimal point ("2,5" is 2.5, as Spanish and German farmers
 * write it); anything else that is not one plain number, thousands separators included, is NaN rather than a guess.
 */
export function parseHectares(text: string): number {
  const t = text.trim().replace(',', '.');
  return /^(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
}

/**
 * Why typed hectares cannot be used, in words that fit what was typed; null when they can (parseHectares > 0).
 * `limit`: the account's largest parcel, named when a number written as a power of ten is over it.
 */
export function hectaresProblem(text: string, limit = Infinity): string | null {
  const t = text.trim();
  const v = parseHectares(t);
  if (v > 0) return null;
  if (!t) return 'Type the hectares: a number above 0, such as 2.5 or 2,5.';
  if (/^[-−]/.test(t)) return `Hectares cannot be negative (${t}): type a number above 0.`;
  if (v === 0) return 'Hectares must be above 0: a point of 0 ha has no square.';
  if (/^[\d.]+e[-+]?\d+$/i.test(t)) {
    const n = Number(t);
    if (n > limit) return `"${t}" is ${n.toLocaleString('en-US')} ha: above the account's limit of ${limit.toLocaleString('en-US')} ha.`;
    return `Write the hectares out in full, such as 2.5: "${t}" (a power of ten) is not read.`;
  }
  if (/^\d{1,3}([.,]\d{3})+([.,]\d+)?$/.test(t)) return `Type the hectares without thousands separators, such as 1200.5: "${t}" is ambiguous.`;
  return `"${t}" is not a number of hectares: type one number above 0, such as 2.5 or 2,5.`;
}
