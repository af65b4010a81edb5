// Validation of imported plant Features (spec: "Plant (GeoJSON Feature)"). Plants are
// re-imported from the service's own exports, so read-only members (id, properties.area,
// key, created, modified) and other extra fields are tolerated and ignored.

import { polygonAreaM2 } from '../geo/area.ts';
import { isPosition, samePosition } from '../geo/position.ts';
import type { PolygonCoords, Position } from '../geo/types.ts';
import { describeValue, isPlainObject } from '../parcels/problems.ts';

export type PlantProblemCode =
  | 'not_collection' | 'not_feature' | 'geometry_type' | 'position_invalid'
  | 'longitude_out_of_range' | 'latitude_out_of_range'
  | 'shape_invalid' | 'ring_too_short' | 'ring_not_closed'
  | 'properties_invalid' | 'parcel_invalid' | 'crop_invalid' | 'info_invalid';

/** `path` is relative to the FeatureCollection, e.g. "features/4/properties/shape/coordinates/0". */
export interface PlantProblem {
  index: number;
  path: string;
  code: PlantProblemCode;
  message: string;
}

export interface ValidPlant {
  point: Position;
  shape: PolygonCoords | null;
  info: unknown;
  parcel: number | null;
  crop: number | null;
}

// info is stored as JSON text; this bounds the walk over hostile nesting.
const MAX_INFO_DEPTH = 64;

type Report = (path: string, code: PlantProblemCode, detail: string) => void;

export function validatePlantFeature(input: unknown, index: number): { plant: ValidPlant | null; problems: PlantProblem[] } {
  const problems: PlantProblem[] = [];
  const base = `features/${index}`;
  const add: Report = (path, code, detail) => {
    problems.push({ index, path, code, message: `Plant ${index}: ${detail}` });
  };
  if (!isPlainObject(input)) {
    add(base, 'not_feature', `a plant must be a GeoJSON Feature object, got ${describeValue(input)}`);
    return { plant: null, problems };
  }
  if (input['type'] !== 'Feature') add(`${base}/type`, 'not_feature', `type must be "Feature", got ${describeValue(input['type'])}`);

  const point = checkPoint(input['geometry'], `${base}/geometry`, add);

  let props = input['properties'];
  if (props === undefined || props === null) props = {};
  if (!isPlainObject(props)) {
    add(`${base}/properties`, 'properties_invalid', `properties must be an object or null, got ${describeValue(props)}`);
    return { plant: null, problems };
  }
  const shape = checkShape(props['shape'], `${base}/properties/shape`, add);
  const parcel = checkReference(props['parcel'], `${base}/properties/parcel`, 'parcel', 'parcel_invalid', add);
  const crop = checkReference(props['crop'], `${base}/properties/crop`, 'crop', 'crop_invalid', add);
  const info = props['info'] === undefined ? null : props['info'];
  if (!isJsonValue(info, 0)) {
    add(`${base}/properties/info`, 'info_invalid', 'info must be a JSON value (no NaN, Infinity, undefined or nesting deeper than 64)');
  }
  if (problems.length > 0 || point === null || shape === undefined || parcel === undefined || crop === undefined) {
    return { plant: null, problems };
  }
  return { plant: { point, shape, info, parcel, crop }, problems };
}

/** All valid plants in order and every problem of every feature; import only when problems is empty. */
export function validatePlantCollection(input: unknown): { plants: ValidPlant[]; problems: PlantProblem[] } {
  const plants: ValidPlant[] = [];
  const problems: PlantProblem[] = [];
  if (!isPlainObject(input) || input['type'] !== 'FeatureCollection' || !Array.isArray(input['features'])) {
    problems.push({
      index: 0, path: '', code: 'not_collection',
      message: 'a plant list must be a GeoJSON FeatureCollection: {"type": "FeatureCollection", "features": [...]}',
    });
    return { plants, problems };
  }
  const features: unknown[] = input['features'];
  for (let i = 0; i < features.length; i++) {
    const result = validatePlantFeature(features[i], i);
    if (result.plant !== null) plants.push(result.plant);
    for (const p of result.problems) problems.push(p);
  }
  return { plants, problems };
}

/** Geodesic area (m²) of a plant's outline; plants without one have no area. */
export function plantAreaM2(shape: PolygonCoords | null): number {
  return shape === null ? 0 : polygonAreaM2(shape);
}

function checkPoint(geometry: unknown, path: string, add: Report): Position | null {
  if (!isPlainObject(geometry) || geometry['type'] !== 'Point') {
    const got = isPlainObject(geometry) ? describeValue(geometry['type']) : describeValue(geometry);
    add(path, 'geometry_type', `geometry must be a Point, got ${got}`);
    return null;
  }
  const coords = geometry['coordinates'];
  return checkPosition(coords, `${path}/coordinates`, 'the point', add) ? coords : null;
}

function checkPosition(value: unknown, path: string, what: string, add: Report): value is Position {
  if (!isPosition(value)) {
    add(path, 'position_invalid', `${what} must be 2 or 3 finite numbers [longitude, latitude, z?], got ${describeValue(value)}`);
    return false;
  }
  let ok = true;
  if (value[0]! < -180 || value[0]! > 180) {
    add(path, 'longitude_out_of_range', `${what} has longitude ${value[0]}, outside [-180, 180]`);
    ok = false;
  }
  if (value[1]! < -90 || value[1]! > 90) {
    add(path, 'latitude_out_of_range', `${what} has latitude ${value[1]}, outside [-90, 90]`);
    ok = false;
  }
  return ok;
}

/** The shape's rings, null when the plant has none, undefined when it is invalid. */
function checkShape(shape: unknown, path: string, add: Report): PolygonCoords | null | undefined {
  if (shape === undefined || shape === null) return null;
  if (!isPlainObject(shape) || shape['type'] !== 'Polygon' || !Array.isArray(shape['coordinates'])) {
    add(path, 'shape_invalid', 'shape must be null or a Polygon {"type": "Polygon", "coordinates": [rings]}');
    return undefined;
  }
  const rings: unknown[] = shape['coordinates'];
  if (rings.length === 0) {
    add(`${path}/coordinates`, 'ring_too_short', 'shape needs at least one ring');
    return undefined;
  }
  let ok = true;
  for (let i = 0; i < rings.length; i++) {
    const ring = rings[i];
    const ringPath = `${path}/coordinates/${i}`;
    if (!Array.isArray(ring)) {
      add(ringPath, 'shape_invalid', `shape ring ${i} must be an array of positions, got ${describeValue(ring)}`);
      ok = false;
      continue;
    }
    if (ring.length < 4) {
      add(ringPath, 'ring_too_short', `shape ring ${i} has ${ring.length} positions; at least 4 are needed`);
      ok = false;
    }
    let positionsOk = true;
    for (let k = 0; k < ring.length; k++) {
      if (!checkPosition(ring[k], `${ringPath}/${k}`, `shape ring ${i} position ${k}`, add)) positionsOk = false;
    }
    if (!positionsOk) {
      ok = false;
    } else if (ring.length >= 2 && !samePosition(ring[0] as Position, ring[ring.length - 1] as Position)) {
      add(ringPath, 'ring_not_closed', `shape ring ${i} is not closed: its first position differs from its last`);
      ok = false;
    }
  }
  return ok ? (rings as PolygonCoords) : undefined;
}

/** A parcel or crop id: null when absent, undefined when invalid. */
function checkReference(value: unknown, path: string, what: string, code: PlantProblemCode, add: Report): number | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  add(path, code, `${what} must be null or a positive integer id, got ${describeValue(value)}`);
  return undefined;
}

function isJsonValue(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth >= MAX_INFO_DEPTH) return false;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const v of items) if (!isJsonValue(v, depth + 1)) return false;
  return true;
}
