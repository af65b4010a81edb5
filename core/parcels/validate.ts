// Validation of parcel inputs for POST /api/parcels/ (and the parcels of POST /api/farms/).
// Every problem of every parcel is reported, so a client fixes a batch in one round trip.

import type { BBox, PolygonGeometry } from '../geo/types.ts';
import { checkGeom } from './geom.ts';
import { checkMetadata } from './metadata.ts';
import type { Metadata } from './metadata.ts';
import { checkName } from './name.ts';
import { describeValue, isPlainObject, joinPath, report, reporter } from './problems.ts';
import type { ParcelProblem } from './problems.ts';

export {
  DEFAULT_MAX_PARCEL_HECTARES, MAX_PARCELS_PER_REQUEST, MAX_POSITIONS_PER_PARCEL, MAX_NAME_LENGTH,
  MAX_METADATA_KEYS, MAX_METADATA_KEY_LENGTH, MAX_METADATA_STRING_LENGTH,
  MAX_POSITION_PROBLEMS_PER_PARCEL, MAX_POINT_LATITUDE, PARCEL_RULES_VERSION,
} from './limits.ts';
export type { ParcelProblem, ParcelProblemCode } from './problems.ts';
export type { Metadata, MetadataValue } from './metadata.ts';
export { validateMetadata } from './metadata.ts';
export type { GeomResult } from './geom.ts';
export { validateGeom } from './geom.ts';
export type { ParcelPatch } from './patch.ts';
export { validateParcelPatch } from './patch.ts';

export interface ValidParcel {
  name: string;
  metadata: Metadata;
  sourceType: 'Polygon' | 'Point';
  geometry: PolygonGeometry; // for a Point: the generated square
  point: [number, number] | null; // the original point for Point inputs
  hectares: number; // geodesic for polygons; the requested hectares for points
  bbox: BBox;
  center: [number, number];
}

export interface ValidateOptions {
  maxHectares: number;
  /** Path of the parcels array in the request body; default 'parcels'. */
  pathPrefix?: string;
}

const PARCEL_KEYS = new Set(['name', 'metadata', 'geom']);

export function validateParcel(
  input: unknown, index: number, opts: ValidateOptions,
): { parcel: ValidParcel | null; problems: ParcelProblem[] } {
  const r = reporter(index);
  const base = joinPath(opts.pathPrefix ?? 'parcels', index);
  if (!isPlainObject(input)) {
    report(r, base, 'not_object', `each parcel must be an object with name, geom and optional metadata, got ${describeValue(input)}`);
    return { parcel: null, problems: r.problems };
  }
  for (const key of Object.keys(input)) {
    if (!PARCEL_KEYS.has(key)) {
      report(r, joinPath(base, key), 'unknown_field',
        `unknown field ${describeValue(key)}; a parcel allows name, metadata and geom`);
    }
  }
  const name = checkName(input['name'], r, joinPath(base, 'name'));
  const metadata = input['metadata'] === undefined ? {} : checkMetadata(input['metadata'], r, joinPath(base, 'metadata'));
  const geom = checkGeom(input['geom'], r, joinPath(base, 'geom'), opts.maxHectares);
  if (r.problems.length > 0 || name === null || metadata === null || geom === null) {
    return { parcel: null, problems: r.problems };
  }
  return { parcel: { name, metadata, ...geom }, problems: r.problems };
}

/**
 * Every problem of every parcel, in index order. The request is atomic, so
 * `parcels` only matters when `problems` is empty; it then holds all of them in order.
 * The count limit (MAX_PARCELS_PER_REQUEST) is the caller's check.
 */
export function validateParcels(
  inputs: readonly unknown[], opts: ValidateOptions,
): { parcels: ValidParcel[]; problems: ParcelProblem[] } {
  const parcels: ValidParcel[] = [];
  const problems: ParcelProblem[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const result = validateParcel(inputs[i], i, opts);
    if (result.parcel !== null) parcels.push(result.parcel);
    for (const p of result.problems) problems.push(p);
  }
  return { parcels, problems };
}
