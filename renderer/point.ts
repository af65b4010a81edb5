// A hectare point's preview: the very square the service will make around it, from the same core/ function and
// checks the service runs on a Point parcel (core/parcels/point.ts), so what is shown before saving is what is stored.
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
