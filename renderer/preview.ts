// What the app shows before saving, computed by the service's own core/ functions so that it is what the service
// will store: a drawn polygon's geodesic hectares (core/geo/area.ts), and a hectare point's square with the checks the
// service runs on a Point parcel (core/parcels/point.ts).
import { polygonHectares } from '../core/geo/area.ts';
import { checkPoint } from '../core/parcels/point.ts';
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
