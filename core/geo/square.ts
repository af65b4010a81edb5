import geodesic from 'geographiclib-geodesic';
import { ringAreaM2 } from './area.ts';
import type { BBox, PolygonCoords, Position } from './types.ts';

const { a: A, f: F } = geodesic.Geodesic.WGS84;
const E2 = F * (2 - F);
const DEG = Math.PI / 180;
// Once a measurement is within 1e-9 of the target, the correction it implies leaves
// an error of order 1e-15 (area is almost exactly quadratic in the scale), so the
// loop applies it without paying for one more measurement: usually two in all.
const TOLERANCE = 1e-9;
const MAX_ITERATIONS = 12;

// Reused for every refinement step: Point parcels arrive in bulk, one square each.
const scratch: Position[] = [[0, 0], [0, 0], [0, 0], [0, 0]];

/**
 * Half-width (degrees of longitude) and half-height (degrees of latitude) of the
 * square centred at `lat` whose geodesic area is `hectares`.
 */
function halfExtents(lat: number, hectares: number): [number, number] {
  if (!Number.isFinite(lat) || Math.abs(lat) >= 90) {
    throw new RangeError(`latitude ${lat} cannot centre a square`);
  }
  if (!Number.isFinite(hectares) || hectares <= 0) {
    throw new RangeError(`hectares must be a positive finite number, got ${hectares}`);
  }
  const target = hectares * 10_000;
  const sinPhi = Math.sin(lat * DEG);
  const w = 1 - E2 * sinPhi * sinPhi;
  // Radii of curvature: along the meridian (M) and along the prime vertical (N);
  // a parallel at latitude φ is a circle of radius N·cos φ.
  const meridional = (A * (1 - E2)) / (w * Math.sqrt(w));
  const primeVertical = A / Math.sqrt(w);
  const halfSide = Math.sqrt(target) / 2;
  const baseLat = halfSide / meridional / DEG;
  const baseLon = halfSide / (primeVertical * Math.cos(lat * DEG)) / DEG;

  // Area grows as the square of a common scale factor, so k ← k·√(target/area) is
  // Newton's step on log(area); the analytic start is already within ~1e-6 for
  // parcel-sized squares, and this closes the gap to what ringAreaM2 measures.
  let k = 1;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const dLat = baseLat * k;
    if (Math.abs(lat) + dLat >= 90) {
      throw new RangeError(`a ${hectares} ha square centred on latitude ${lat} would reach the pole`);
    }
    const area = squareRingArea(0, lat, baseLon * k, dLat);
    if (!(area > 0)) throw new RangeError(`a ${hectares} ha square at latitude ${lat} has no measurable area`);
    const ratio = target / area;
    k *= Math.sqrt(ratio);
    if (Math.abs(ratio - 1) < TOLERANCE) break;
  }
  return [baseLon * k, baseLat * k];
}

function squareRingArea(lon: number, lat: number, dLon: number, dLat: number): number {
  fillRing(scratch, lon, lat, dLon, dLat);
  return ringAreaM2(scratch);
}

// Counter-clockwise from the south-west corner (RFC 7946 §3.1.6 winding for outer rings).
function fillRing(ring: Position[], lon: number, lat: number, dLon: number, dLat: number): void {
  const west = lon - dLon;
  const east = lon + dLon;
  const south = lat - dLat;
  const north = lat + dLat;
  set(ring[0]!, west, south);
  set(ring[1]!, east, south);
  set(ring[2]!, east, north);
  set(ring[3]!, west, north);
}

function set(p: Position, lon: number, lat: number): void {
  p[0] = lon;
  p[1] = lat;
}

/**
 * A closed, counter-clockwise, 5-position ring bounded by two meridians and two
 * parallels, centred on (lon, lat), whose geodesic area (ringAreaM2) equals
 * `hectares` to far better than 0.01 %. Longitudes are not wrapped: a square centred
 * next to the antimeridian gets a longitude beyond ±180, which callers must reject.
 * @throws RangeError for a non-positive or non-finite size, or a square reaching a pole.
 */
export function hectareSquare(lon: number, lat: number, hectares: number): PolygonCoords {
  if (!Number.isFinite(lon)) throw new RangeError(`longitude ${lon} cannot centre a square`);
  const [dLon, dLat] = halfExtents(lat, hectares);
  const ring: Position[] = [[0, 0], [0, 0], [0, 0], [0, 0]];
  fillRing(ring, lon, lat, dLon, dLat);
  ring.push([ring[0]![0]!, ring[0]![1]!]);
  return [ring];
}

/** The bounding box of hectareSquare(lon, lat, hectares), identical to bboxOf() of it. */
export function squareBBox(lon: number, lat: number, hectares: number): BBox {
  if (!Number.isFinite(lon)) throw new RangeError(`longitude ${lon} cannot centre a square`);
  const [dLon, dLat] = halfExtents(lat, hectares);
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat];
}
