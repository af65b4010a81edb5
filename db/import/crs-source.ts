// The coordinate system a file is in — a GeoJSON's legacy "crs" member, a Shapefile's .prj; KML is always WGS84 — and
// its features' coordinates reprojected to WGS84 longitude/latitude (core/geo/crs.ts) before anything else looks at
// them: conversion, validation, hectares and the account's limit then see what they always saw.
import { CrsError, crsLabel, reprojectGeometry, reprojector, type CrsDefinition } from '../../core/geo/crs.ts';
import { matchWkt } from '../../core/geo/crs-match.ts';
import { describeWkt, epsgOf, isWgs84Prj, parseWkt, WktError } from '../../core/geo/wkt.ts';
import { ImportError, REPROJECT } from './errors.ts';
import { epsgDefinition, epsgEntries, gridsFor } from './epsg.ts';
import { NOT_REPROJECTED } from './convert.ts';

/** What the preview and the import say of a file's coordinate system (core/api-imports.ts ImportCrs). */
export interface FileCrs {
  /** The EPSG code; null for a CRS its .prj describes without one that Furrow could match. */
  code: number | null;
  name: string;
  /** Its coordinates were transformed to WGS84 (false: they were WGS84 already). */
  reprojected: boolean;
  /** How the datum was shifted: not at all (WGS84, ETRS89…), by published Helmert parameters, or by an NTv2 grid. */
  shift: 'none' | 'helmert' | 'grid';
  /** The grid file, for a grid shift. */
  grid: string | null;
  /** Metres: the EPSG dataset's accuracy for a Helmert shift, when it gives one. */
  accuracy: number | null;
}

export const WGS84_FILE: FileCrs = { code: 4326, name: 'WGS 84', reprojected: false, shift: 'none', grid: null, accuracy: null };

/** Where a grid goes for Furrow to find it: the first folder it looks in (the app's own). */
const gridWayOut = (dirs: readonly string[]) =>
  dirs.length ? `put the grid file in ${dirs[0]} and import the file again, or ${REPROJECT}` : REPROJECT;

/** A CrsError of core/geo/crs.ts as the import's refusal, with the way out. */
export function crsRefusal(e: CrsError, fileName: string, dirs: readonly string[]): ImportError {
  const way = e.code === 'grid_missing' ? gridWayOut(dirs) : REPROJECT;
  const refusal = new ImportError(e.code, `${fileName}: ${e.message}; ${way}`);
  refusal.grids = e.grids;
  return refusal;
}

/** A GeoJSON's "crs" member: null for WGS84 longitude/latitude (none, CRS84, EPSG:4326), else its definition. */
export function crsOfGeoJson(crs: unknown, fileName: string): CrsDefinition | null {
  if (typeof crs !== 'object' || crs === null) return null;
  const props = (crs as Record<string, unknown>)['properties'];
  const raw = typeof props === 'object' && props !== null ? (props as Record<string, unknown>)['name'] : undefined;
  if (typeof raw !== 'string') {
    throw new ImportError('crs_unknown', `${fileName}: its "crs" member names no coordinate system Furrow can read (only {"type":"name","properties":{"name":"EPSG:…"}} is); ${REPROJECT}`);
  }
  const name = raw.trim();
  if (/CRS:?84$/i.test(name)) return null;
  // "urn:ogc:def:crs:EPSG::25830" (what ogr2ogr writes), "EPSG:25830", "http://www.opengis.net/def/crs/EPSG/0/25830".
  const code = /EPSG(?::{1,2}|\/\d+\/)(?:[\d.]*:)?(\d+)$/i.exec(name)?.[1];
  if (!code) throw new ImportError('crs_unknown', `${fileName}: its "crs" member names ${name}, not an EPSG code Furrow can look up; ${REPROJECT}`);
  if (Number(code) === 4326) return null;
  return definitionByCode(Number(code), fileName, `its "crs" member names EPSG:${code}`);
}

function definitionByCode(code: number, fileName: string, said: string): CrsDefinition {
  let found;
  try {
    found = epsgDefinition(code);
  } catch (e) {
    if (e instanceof CrsError) throw crsRefusal(e, fileName, []);
    throw e;
  }
  const { def, kind } = found;
  if (def) return def;
  throw new ImportError(kind ? 'crs_unsupported' : 'crs_unknown', kind
    ? `${fileName}: ${said}, a ${kind.replace(/^CRS-/, '').toLowerCase()} coordinate system, not a projected or geographic one a file's positions can be in; ${REPROJECT}`
    : `${fileName}: ${said}, which is not in the EPSG definitions Furrow has; ${REPROJECT}`);
}

/**
 * A Shapefile's .prj: null for WGS84 longitude/latitude, else its definition: by the EPSG code it gives, or else by
 * matching it with the EPSG definitions (ESRI's WKT, which GDAL writes, names none), or else as it describes itself
 * when that is enough (a TOWGS84, or a WGS84 ellipsoid).
 */
export function crsOfPrj(prj: string, fileName: string): CrsDefinition | null {
  if (isWgs84Prj(prj)) return null;
  // Some tools write just the code.
  const bare = /^\s*EPSG:(\d+)\s*$/i.exec(prj)?.[1];
  if (bare) return definitionByCode(Number(bare), fileName, `its .prj names EPSG:${bare}`);
  let root;
  try {
    root = parseWkt(prj);
  } catch (e) {
    throw new ImportError('crs_unknown', `${fileName}: its .prj is not a coordinate system Furrow can read (${(e as Error).message}); ${REPROJECT}`);
  }
  const code = epsgOf(root);
  if (code === 4326) return null;
  if (code !== null) return definitionByCode(code, fileName, `its .prj names EPSG:${code}`);
  if (/^(GEOGCRS|PROJCRS|GEODCRS|COMPOUNDCRS|BOUNDCRS)$/.test(root.key)) {
    throw new ImportError('crs_unknown', `${fileName}: its .prj is WKT2 without an EPSG ID["EPSG",…], which Furrow cannot identify; ${REPROJECT}`);
  }
  let wkt;
  try {
    wkt = describeWkt(root);
  } catch (e) {
    if (!(e instanceof WktError)) throw e;
    throw new ImportError('crs_unsupported', `${fileName}: its .prj, "${root.args[0]}", cannot be used: ${e.message}; ${REPROJECT}`);
  }
  const found = matchWkt(wkt, epsgEntries());
  if (found.kind === 'match') return found.def;
  const own: CrsDefinition = { code: null, name: wkt.name, proj4: wkt.proj4, accuracy: null, bbox: null };
  if (wkt.towgs84) return own;
  if (found.kind === 'ambiguous') {
    const listed = found.defs.slice(0, 4).map((d) => crsLabel(d)).join(', ');
    throw new ImportError('crs_ambiguous', `${fileName}: its .prj, "${wkt.name}", names no EPSG code, and ${found.defs.length} EPSG coordinate systems ` +
      `with different datum shifts fit it (${listed}${found.defs.length > 4 ? ', …' : ''}): save it with its EPSG code (QGIS: Layer › Set CRS), or ${REPROJECT}`);
  }
  // Not an EPSG CRS: usable as it describes itself when its datum is WGS84's (reprojector refuses it otherwise).
  return own;
}

/** A feature whose position has no place in WGS84: its geometry emptied and the reason kept for its problem. */
function unprojected(feature: Record<string, unknown>, why: string): Record<string | symbol, unknown> {
  const geometry = feature['geometry'] as { type?: unknown } | null;
  return { type: 'Feature', properties: feature['properties'] ?? null, geometry: { type: geometry?.type, coordinates: [] }, [NOT_REPROJECTED]: why };
}

/**
 * Reprojects `features` to WGS84 in place (failed ones replaced, NOT_REPROJECTED: their problem says why), loading
 * the grids the datum shift needs from `gridDirs`. Returns what the preview says of the CRS, and notes.
 */
export function reprojectFeatures(features: unknown[], def: CrsDefinition, fileName: string, gridDirs: readonly string[]): { crs: FileCrs; notes: string[] } {
  let r;
  try {
    r = reprojector(def, gridsFor(def, gridDirs));
  } catch (e) {
    if (e instanceof CrsError) throw crsRefusal(e, fileName, gridDirs);
    throw e;
  }
  const label = crsLabel(def);
  let outside = 0;
  const [north, west, south, east] = def.bbox ?? [90, -180, -90, 180];
  for (let i = 0; i < features.length; i++) {
    const f = features[i];
    if (typeof f !== 'object' || f === null) continue;
    let away = false;
    const to = (x: number, y: number) => {
      const out = r.toWgs84(x, y);
      // A degree's margin around the area of use: parcels near a border are in it.
      if (out && (out[1] > north + 1 || out[1] < south - 1 || (west <= east ? out[0] < west - 1 || out[0] > east + 1 : out[0] < west - 1 && out[0] > east + 1))) away = true;
      return out;
    };
    const bad = reprojectGeometry((f as Record<string, unknown>)['geometry'], to, 9);
    if (bad) {
      const grid = r.shift.kind === 'grid' ? ` or outside the grid ${r.shift.grids.join(', ')}` : '';
      features[i] = unprojected(f as Record<string, unknown>, `its position [${bad.join(', ')}] has no place in WGS84 from ${label} (outside what the projection covers${grid})`);
    } else if (away) {
      outside++;
    }
  }
  const notes = outside > 0 && def.bbox
    ? [`${outside} feature(s) of ${fileName} lie outside the area ${label} is used in: check that the file is really in ${label}`]
    : [];
  const shift = r.shift.kind === 'grid' ? 'grid' : r.shift.kind === 'helmert' && r.shift.params.some((v) => v !== 0) ? 'helmert' : 'none';
  return {
    crs: { code: def.code, name: def.name, reprojected: true, shift, grid: r.shift.kind === 'grid' ? r.shift.grids.join(', ') : null, accuracy: shift === 'helmert' ? def.accuracy : null },
    notes,
  };
}
