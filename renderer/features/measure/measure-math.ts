// What the Measure tool shows (MeasurePanel.tsx), from the vertices clicked ([lon, lat]): a line's geodesic length
// and each segment's (core/geo/length.ts), a polygon's geodesic area by the very function the parcels' hectares are
// computed with (core/geo/area.ts polygonAreaM2, so a parcel's outline measured gives its hectares exactly) and its
// perimeter; in metric units or in US customary ones (international foot, statute mile, international acre), as the
// user chooses.
import { polygonAreaM2 } from '../../../core/geo/area.ts';
import { lineLengthsM, ringPerimeterM } from '../../../core/geo/length.ts';
import { closeRing, type LonLat } from '../../preview.ts';

export type MeasureKind = 'line' | 'area';
export type Units = 'metric' | 'us';

export const FOOT_M = 0.3048;
export const MILE_M = 1609.344;
export const ACRE_M2 = 4046.8564224;

export interface Measurement {
  kind: MeasureKind;
  /** Vertices measured (a ring's closing one not repeated). */
  vertices: number;
  segments: number[];
  /** The line's length, or the polygon's perimeter, in metres. */
  lengthM: number;
  /** The polygon's area in m² (0 for a line, or below three vertices). */
  areaM2: number;
}

/** The measurement of `points`: a line along them, or the polygon they outline (closed back to the first). */
export function measure(kind: MeasureKind, points: readonly LonLat[]): Measurement {
  if (kind === 'line') {
    const { segments, total } = lineLengthsM(points);
    return { kind, vertices: points.length, segments, lengthM: total, areaM2: 0 };
  }
  const ring = [...points];
  const closed = closeRing(ring);
  return {
    kind, vertices: ring.length,
    segments: lineLengthsM(closed).segments.slice(0, ring.length < 2 ? 0 : ring.length),
    lengthM: ring.length >= 2 ? ringPerimeterM(ring) : 0,
    areaM2: ring.length >= 3 ? polygonAreaM2([closed]) : 0,
  };
}

const num = (x: number, decimals: number) => x.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });

/** A length: metres to the centimetre below a kilometre, else kilometres to the metre; feet below a mile, else miles. */
export function formatLength(m: number, units: Units): string {
  if (units === 'us') return m < MILE_M ? `${num(m / FOOT_M, 1)} ft` : `${num(m / MILE_M, 3)} mi`;
  return m < 1000 ? `${num(m, 2)} m` : `${num(m / 1000, 3)} km`;
}

/** An area in two units: hectares to the m² and m² (metric), or acres and square feet (US). */
export function formatArea(m2: number, units: Units): string {
  if (units === 'us') return `${num(m2 / ACRE_M2, 4)} ac (${num(m2 / (FOOT_M * FOOT_M), 0)} ft²)`;
  return `${num(m2 / 10_000, 4)} ha (${num(m2, 0)} m²)`;
}

/** The measurement as one line of text, for the clipboard: what the panel shows. */
export function measurementText(m: Measurement, units: Units): string {
  if (m.kind === 'line') {
    const parts = m.segments.length > 1 ? ` (segments: ${m.segments.map((s) => formatLength(s, units)).join(', ')})` : '';
    return `Length ${formatLength(m.lengthM, units)}${parts}, geodesic on WGS84`;
  }
  return `Area ${formatArea(m.areaM2, units)}, perimeter ${formatLength(m.lengthM, units)}, geodesic on WGS84`;
}
