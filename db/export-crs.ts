// An export in another coordinate system than WGS84 (db/export.ts): the CRS of an EPSG code (the epsg-index
// definitions, db/import/epsg.ts, with the NTv2 grid its datum shift may need), and each parcel's stored WGS84
// geometry written in it. WGS84 (EPSG:4326) stays the default and is written as stored.
import { CrsError, crsLabel, reprojectGeometry, reprojector, type CrsDefinition, type Reprojector } from '../core/geo/crs.ts';
import { epsgDefinition, gridsFor } from './import/epsg.ts';

export interface Projection { def: CrsDefinition; r: Reprojector }

/**
 * The projection to EPSG:`code`, null for WGS84 itself. Throws CrsError: a code Furrow has no definition of
 * (crs_unknown), a CRS positions cannot be in (crs_unsupported), a datum without a known shift (datum_unknown), a
 * grid not found in `gridDirs` (grid_missing).
 */
export function exportProjection(code: number, gridDirs: readonly string[]): Projection | null {
  if (code === 4326) return null;
  const { def, kind } = epsgDefinition(code);
  if (!def) {
    throw kind
      ? new CrsError('crs_unsupported', `EPSG:${code} is a ${kind.replace(/^CRS-/, '').toLowerCase()} coordinate system, not a projected or geographic one parcels can be written in`)
      : new CrsError('crs_unknown', `EPSG:${code} is not in the EPSG definitions Furrow has`);
  }
  return { def, r: reprojector(def, gridsFor(def, gridDirs)) };
}

/** A stored geometry's JSON (WGS84) as JSON in the projection's CRS; `name` says which parcel when it cannot be. */
export function projectedGeometry(json: string, p: Projection, name: string): string {
  const g = JSON.parse(json) as unknown;
  const bad = reprojectGeometry(g, p.r.fromWgs84, p.r.decimals);
  if (bad) throw new CrsError('crs_unsupported', `parcel '${name}' at [${bad.join(', ')}] has no position in ${crsLabel(p.def)} (outside what it covers)`);
  return JSON.stringify(g);
}

/** The legacy GeoJSON "crs" member naming it, as ogr2ogr and QGIS write it (RFC 7946 GeoJSON is WGS84 and has none). */
export const crsMember = (p: Projection): string => `"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::${p.def.code}"}}`;
