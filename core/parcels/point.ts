import { bboxOf } from '../geo/bbox.ts';
import { hectareSquare } from '../geo/square.ts';
import type { PolygonCoords } from '../geo/types.ts';
import { MAX_POINT_LATITUDE } from './limits.ts';
import { describeValue, formatCoordinate, formatHectares, isPlainObject, joinPath, report } from './problems.ts';
import type { Reporter } from './problems.ts';
import { checkPosition } from './position.ts';
import type { Emit } from './position.ts';

export interface CheckedPoint {
  point: [number, number];
  square: PolygonCoords;
  hectares: number;
}

/**
 * A Point parcel becomes a square of the requested hectares centred on it.
 * `geomPath` is that of the Feature; `properties` is the Feature's (already {} when absent).
 */
export function checkPoint(
  coordinates: unknown, properties: unknown, r: Reporter, geomPath: string, maxHectares: number,
): CheckedPoint | null {
  const before = r.problems.length;
  const coordPath = joinPath(joinPath(geomPath, 'geometry'), 'coordinates');
  const emit: Emit = (path, code, detail) => {
    report(r, path, code, detail);
  };
  const positionOk = checkPosition(coordinates, coordPath, 'the point', MAX_POINT_LATITUDE, emit);

  const metadata = isPlainObject(properties) ? properties['metadata'] : undefined;
  const hectares: unknown = isPlainObject(metadata) ? metadata['hectares'] : undefined;
  const hectaresPath = joinPath(joinPath(joinPath(geomPath, 'properties'), 'metadata'), 'hectares');
  if (typeof hectares !== 'number' || !Number.isFinite(hectares) || hectares <= 0) {
    report(r, hectaresPath, 'hectares_missing',
      `point parcels need geom.properties.metadata.hectares, a positive number (got ${describeValue(hectares)})`);
  } else if (hectares > maxHectares) {
    report(r, hectaresPath, 'area_over_limit',
      `area ${formatHectares(hectares, maxHectares)} ha exceeds the account's limit of ${maxHectares} ha`);
  }
  if (!positionOk || r.problems.length > before || typeof hectares !== 'number') return null;

  const lon = (coordinates as number[])[0]!;
  const lat = (coordinates as number[])[1]!;
  let square: PolygonCoords;
  try {
    square = hectareSquare(lon, lat, hectares);
  } catch (e) {
    // Only reachable with an account limit large enough for a square to span a pole.
    if (!(e instanceof RangeError)) throw e;
    report(r, coordPath, 'latitude_out_of_range',
      `a ${formatHectares(hectares)} ha square centred on latitude ${formatCoordinate(lat)} would reach the pole`);
    return null;
  }
  // Longitudes are not wrapped, so a square next to the antimeridian would leave
  // [-180, 180] and break every planar consumer downstream.
  const box = bboxOf(square);
  if (box[0] < -180 || box[2] > 180) {
    report(r, coordPath, 'longitude_out_of_range',
      `a ${formatHectares(hectares)} ha square centred on longitude ${formatCoordinate(lon)} would cross the antimeridian (±180)`);
    return null;
  }
  return { point: [lon, lat], square, hectares };
}
