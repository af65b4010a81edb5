// core/api-layer-files.ts crsDefinition: an EPSG code's definition for the page (go to coordinate, typed as
// "EPSG:25830 234567 4145678"), the import's own (db/import/epsg.ts, with EPSG's published shifts), its grids made
// optional as for a GeoTIFF layer (backend/epsg-proj4.ts). Only horizontal CRSs: a vertical one places nothing.
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { CrsInfo } from '../core/api-layer-files.ts';
import { CrsError } from '../core/geo/crs.ts';
import { epsgDefinition } from '../db/import/epsg.ts';
import { optionalGrids, shiftsByGrid } from './epsg-proj4.ts';

const KINDS: Record<string, string> = { 'CRS-VERTCRS': 'vertical', 'CRS-COMPOUNDCRS': 'compound', 'CRS-GEOCCRS': 'geocentric', 'CRS-ENGCRS': 'engineering' };

export function crsDefinition(code: number): CrsInfo {
  let found: ReturnType<typeof epsgDefinition>;
  try {
    found = epsgDefinition(code);
  } catch (err) {
    if (err instanceof CrsError) throw new RpcError(ApiErrorCode.invalidCrs, `${err.message}: coordinates in it cannot be placed`, { code, grids: [] });
    throw err;
  }
  const { def, kind } = found;
  if (!def) {
    const why = kind ? `EPSG:${code} is a ${KINDS[kind] ?? kind} coordinate system, not one of two coordinates on the map` : `Furrow has no definition of EPSG:${code}`;
    throw new RpcError(ApiErrorCode.invalidCrs, `${why}: type a projected or geographic EPSG code, such as EPSG:25830 (ETRS89 / UTM zone 30N)`, { code, grids: [] });
  }
  const proj4 = optionalGrids(def.proj4);
  return { code, name: def.name, proj4, byGrid: shiftsByGrid(proj4) };
}
