import { polygonAreaM2 } from '../geo/area.ts';
import { bboxOf } from '../geo/bbox.ts';
import { pointInRing } from '../geo/contains.ts';
import { findSelfIntersection } from '../geo/intersect.ts';
import { isPosition, samePosition } from '../geo/position.ts';
import type { BBox, PolygonCoords, Position } from '../geo/types.ts';
import { MAX_POSITION_PROBLEMS_PER_PARCEL, MAX_POSITIONS_PER_PARCEL } from './limits.ts';
import { describeValue, formatHectares, formatPoint, joinPath, report } from './problems.ts';
import type { ParcelProblem, Reporter } from './problems.ts';
import { checkPosition } from './position.ts';
import type { Emit } from './position.ts';

export interface CheckedPolygon {
  coordinates: PolygonCoords;
  hectares: number;
}

/**
 * Polygon rules, cheapest first. The sweep and the geodesic area only run once the
 * structure is sound: they assume closed rings of valid positions, and a parcel that
 * is already rejected is not worth their cost on the bulk path.
 * `path` is that of geometry.coordinates.
 */
export function checkPolygon(coords: unknown, r: Reporter, path: string, maxHectares: number): CheckedPolygon | null {
  if (!Array.isArray(coords)) {
    report(r, path, 'position_invalid', `Polygon coordinates must be an array of rings, got ${describeValue(coords)}`);
    return null;
  }
  if (coords.length === 0) {
    report(r, path, 'ring_too_short', 'a Polygon needs at least one ring, got none');
    return null;
  }
  if (!checkStructure(coords, r, path)) return null;
  const rings = coords as PolygonCoords;

  const hit = findSelfIntersection(rings);
  if (hit !== null) {
    const where = formatPoint(hit.at[0], hit.at[1]);
    const detail = hit.ring === hit.otherRing
      ? `${ringName(hit.ring)} crosses or touches itself: segment ${hit.segment} meets segment ${hit.otherSegment} at ${where}`
      : `${ringName(hit.ring)} segment ${hit.segment} meets ${ringName(hit.otherRing)} segment ${hit.otherSegment} at ${where}`;
    report(r, joinPath(joinPath(path, hit.ring), hit.segment), 'self_intersection', detail);
    return null;
  }
  if (!checkHoles(rings, r, path)) return null;

  const hectares = polygonAreaM2(rings) / 10_000;
  if (!(hectares > 0)) {
    report(r, path, 'area_not_positive', 'the polygon encloses no area (0 ha): its positions do not span a surface');
    return null;
  }
  if (hectares > maxHectares) {
    report(r, path, 'area_over_limit',
      `area ${formatHectares(hectares, maxHectares)} ha exceeds the account's limit of ${maxHectares} ha`);
    return null;
  }
  return { coordinates: rings, hectares };
}

function ringName(ring: number): string {
  return ring === 0 ? 'ring 0 (outer)' : `ring ${ring} (hole)`;
}

/** Ring shapes, positions and closure; true when all hold. */
function checkStructure(coords: unknown[], r: Reporter, path: string): boolean {
  const before = r.problems.length;
  let total = 0;
  for (let i = 0; i < coords.length; i++) {
    const ring = coords[i];
    if (Array.isArray(ring)) total += ring.length;
    else report(r, joinPath(path, i), 'position_invalid', `ring ${i} must be an array of positions, got ${describeValue(ring)}`);
  }
  // Past the limit the positions are not inspected one by one: the parcel is
  // rejected anyway and the input may be arbitrarily large.
  const tooMany = total > MAX_POSITIONS_PER_PARCEL;
  const positions = cappedEmitter(r);
  for (let i = 0; i < coords.length; i++) {
    const ring = coords[i];
    if (!Array.isArray(ring)) continue;
    const ringPath = joinPath(path, i);
    if (ring.length < 4) {
      report(r, ringPath, 'ring_too_short',
        `ring ${i} has ${ring.length} position${ring.length === 1 ? '' : 's'}; a ring needs at least 4 (first repeated last)`);
    }
    let endsValid = true;
    if (!tooMany) {
      for (let k = 0; k < ring.length; k++) {
        // A sound position needs no path or label: building those two strings for each of the 100,000s of
        // positions of a bulk create cost more than checking them.
        if (inRange(ring[k])) continue;
        const ok = checkPosition(ring[k], joinPath(ringPath, k), `ring ${i} position ${k}`, 90, positions.emit);
        if (!ok && (k === 0 || k === ring.length - 1)) endsValid = false;
      }
    }
    const first: unknown = ring[0];
    const last: unknown = ring[ring.length - 1];
    if (ring.length >= 2 && endsValid && Array.isArray(first) && Array.isArray(last) && !samePosition(first as Position, last as Position)) {
      report(r, ringPath, 'ring_not_closed',
        `ring ${i} is not closed: its first position ${describeValue(first)} differs from its last ${describeValue(last)}`);
    }
  }
  positions.finish();
  if (tooMany) {
    report(r, path, 'too_many_positions',
      `the polygon has ${total} positions; at most ${MAX_POSITIONS_PER_PARCEL} are allowed per parcel`);
  }
  return r.problems.length === before;
}

/** Exactly the positions checkPosition (with a latitude limit of 90) accepts without a word. */
function inRange(value: unknown): boolean {
  if (!isPosition(value)) return false;
  const lon = value[0]!;
  const lat = value[1]!;
  return lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90;
}

/** Reports position problems up to the cap, then counts the rest onto the last one reported. */
function cappedEmitter(r: Reporter): { emit: Emit; finish: () => void } {
  let reported = 0;
  let suppressed = 0;
  let lastReported: ParcelProblem | null = null;
  return {
    emit(path, code, detail) {
      if (reported < MAX_POSITION_PROBLEMS_PER_PARCEL) {
        lastReported = report(r, path, code, detail);
        reported++;
      } else {
        suppressed++;
      }
    },
    finish() {
      if (suppressed > 0 && lastReported !== null) {
        lastReported.message += ` (and ${suppressed} more position problem${suppressed === 1 ? '' : 's'} in this parcel, not listed)`;
      }
    },
  };
}

/**
 * Every hole must lie in the shell and outside every other hole. The sweep has
 * already ruled out any contact between rings, so one vertex decides where a whole
 * ring lies; testing all of them would be O(n·m) for nothing.
 */
function checkHoles(rings: PolygonCoords, r: Reporter, path: string): boolean {
  if (rings.length < 2) return true;
  const before = r.problems.length;
  const outer = rings[0]!;
  const boxes: BBox[] = rings.map((ring) => bboxOf([ring]));
  for (let i = 1; i < rings.length; i++) {
    const probe = rings[i]![0]!;
    if (!pointInRing(probe, outer)) {
      report(r, joinPath(path, i), 'hole_outside', `ring ${i} (hole) lies outside the outer ring (ring 0)`);
      continue;
    }
    for (let j = 1; j < rings.length; j++) {
      if (j === i || !inBox(probe, boxes[j]!)) continue;
      if (pointInRing(probe, rings[j]!)) {
        report(r, joinPath(path, i), 'hole_outside',
          `ring ${i} (hole) lies inside ring ${j} (another hole), so outside the polygon's surface`);
        break;
      }
    }
  }
  return r.problems.length === before;
}

function inBox(p: Position, box: BBox): boolean {
  const x = p[0]!;
  const y = p[1]!;
  return x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3];
}
