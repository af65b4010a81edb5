import { bboxOf, centerOf } from '../geo/bbox.ts';
import type { BBox, PolygonGeometry } from '../geo/types.ts';
import { checkPoint } from './point.ts';
import { checkPolygon } from './polygon.ts';
import { describeValue, isPlainObject, joinPath, report, reporter } from './problems.ts';
import type { ParcelProblem, Reporter } from './problems.ts';

export interface GeomResult {
  sourceType: 'Polygon' | 'Point';
  geometry: PolygonGeometry;
  point: [number, number] | null;
  hectares: number;
  bbox: BBox;
  center: [number, number];
}

const FEATURE_KEYS = new Set(['type', 'properties', 'geometry', 'id', 'bbox']);
const GEOMETRY_KEYS = new Set(['type', 'coordinates', 'bbox']);

/**
 * The parcel's `geom`: a GeoJSON Feature holding a Polygon or a Point. The returned
 * polygon shares its coordinate arrays with the input (no copy on the bulk path),
 * so the input must not be mutated afterwards.
 */
export function checkGeom(geom: unknown, r: Reporter, path: string, maxHectares: number): GeomResult | null {
  if (!isPlainObject(geom)) {
    report(r, path, 'geom_not_feature', `geom must be a GeoJSON Feature object, got ${describeValue(geom)}`);
    return null;
  }
  const before = r.problems.length;
  for (const key of Object.keys(geom)) {
    if (!FEATURE_KEYS.has(key)) {
      report(r, joinPath(path, key), 'unknown_field',
        `geom has an unknown field ${describeValue(key)}; a Feature allows type, properties, geometry, id and bbox`);
    }
  }
  if (geom['type'] !== 'Feature') {
    report(r, joinPath(path, 'type'), 'geom_not_feature', `geom.type must be "Feature", got ${describeValue(geom['type'])}`);
  }
  let properties = geom['properties'];
  if (properties === undefined || properties === null) {
    properties = {};
  } else if (!isPlainObject(properties)) {
    report(r, joinPath(path, 'properties'), 'geom_not_feature',
      `geom.properties must be an object or null, got ${describeValue(properties)}`);
  }
  const geometry = geom['geometry'];
  const geometryPath = joinPath(path, 'geometry');
  if (!isPlainObject(geometry)) {
    report(r, geometryPath, 'geom_not_feature', `geom.geometry must be a Polygon or Point object, got ${describeValue(geometry)}`);
    return null;
  }
  for (const key of Object.keys(geometry)) {
    if (!GEOMETRY_KEYS.has(key)) {
      report(r, joinPath(geometryPath, key), 'unknown_field',
        `geom.geometry has an unknown field ${describeValue(key)}; a geometry allows type, coordinates and bbox`);
    }
  }
  const type = geometry['type'];
  const coordinates = geometry['coordinates'];
  if (type === 'Polygon') {
    const polygon = checkPolygon(coordinates, r, joinPath(geometryPath, 'coordinates'), maxHectares);
    if (polygon === null || r.problems.length > before) return null;
    const bbox = bboxOf(polygon.coordinates);
    return {
      sourceType: 'Polygon',
      geometry: { type: 'Polygon', coordinates: polygon.coordinates },
      point: null,
      hectares: polygon.hectares,
      bbox,
      center: centerOf(bbox),
    };
  }
  if (type === 'Point') {
    const point = checkPoint(coordinates, properties, r, path, maxHectares);
    if (point === null || r.problems.length > before) return null;
    return {
      sourceType: 'Point',
      geometry: { type: 'Polygon', coordinates: point.square },
      point: point.point,
      hectares: point.hectares,
      bbox: bboxOf(point.square),
      center: [point.point[0], point.point[1]],
    };
  }
  report(r, joinPath(geometryPath, 'type'), 'geometry_type',
    `geometry type must be "Polygon" or "Point", got ${describeValue(type)}`);
  return null;
}

/** Problems and result of a parcel's `geom`; `path` is where it sits, e.g. "parcels/3/geom". */
export function validateGeom(
  geom: unknown, index: number, path: string, opts: { maxHectares: number },
): { geom: GeomResult | null; problems: ParcelProblem[] } {
  const r = reporter(index);
  const result = checkGeom(geom, r, path, opts.maxHectares);
  return { geom: result, problems: r.problems };
}
