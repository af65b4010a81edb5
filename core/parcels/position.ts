import { isPosition } from '../geo/position.ts';
import type { Position } from '../geo/types.ts';
import { describeValue, formatCoordinate } from './problems.ts';
import type { ParcelProblemCode } from './problems.ts';

export type Emit = (path: string, code: ParcelProblemCode, detail: string) => void;

/**
 * Checks one position and reports through `emit`; `what` names it in messages
 * ("ring 0 position 2", "the point"). Both range problems are reported when both apply.
 */
export function checkPosition(value: unknown, path: string, what: string, maxLat: number, emit: Emit): value is Position {
  if (!isPosition(value)) {
    emit(path, 'position_invalid', `${what} must be [longitude, latitude] or [longitude, latitude, z] of finite numbers, got ${describeValue(value)}`);
    return false;
  }
  const lon = value[0]!;
  const lat = value[1]!;
  let ok = true;
  if (lon < -180 || lon > 180) {
    emit(path, 'longitude_out_of_range', `${what} has longitude ${formatCoordinate(lon, 180)}, outside [-180, 180]`);
    ok = false;
  }
  if (lat < -maxLat || lat > maxLat) {
    // The commonest cause by far is [lat, lon] order, which GeoJSON does not use.
    const hint = Math.abs(lat) > 90 && Math.abs(lon) <= 90 ? ' (GeoJSON order is [longitude, latitude]; were they swapped?)' : '';
    const scope = maxLat === 90 ? '' : ' allowed for point parcels';
    emit(path, 'latitude_out_of_range', `${what} has latitude ${formatCoordinate(lat, maxLat)}, outside [-${maxLat}, ${maxLat}]${scope}${hint}`);
    ok = false;
  }
  return ok;
}
