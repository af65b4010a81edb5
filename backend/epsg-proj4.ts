// An EPSG code's proj4 definition — the import's own (db/import/epsg.ts: the epsg-index package, with the datum
// shifts EPSG publishes) — for the host to place a GeoTIFF on the map (its extent in WGS84) and for the page to
// register the projection OpenLayers draws it in. Only horizontal CRSs: a vertical or compound one places nothing.
import proj4 from 'proj4';
import { epsgDefinition } from '../db/import/epsg.ts';

/** EPSG:`code`'s proj4 definition (its grids made optional), or null when there is none proj4 can use. */
export function proj4Of(code: number): string | null {
  try {
    const def = epsgDefinition(code).def;
    return def ? optionalGrids(def.proj4) : null;
  } catch {
    // crs_unsupported: an ellipsoid proj4 does not know
    return null;
  }
}

/**
 * A datum shift by grid files (+nadgrids=a.gsb,b.gsb) made optional (@a.gsb): neither the host nor the page has the
 * grids, and proj4 fails every point for a required grid it lacks; without it the shift is the datum's own
 * (+towgs84, or none), off by a few metres at most.
 */
export function optionalGrids(def: string): string {
  return def.replace(/\+nadgrids=(\S+)/, (_, grids: string) => `+nadgrids=${grids.split(',').map((g) => (g.startsWith('@') ? g : `@${g}`)).join(',')}`);
}

/** Whether a definition shifts its datum by grid files (made optional: placed within metres, not centimetres). */
export const shiftsByGrid = (def: string): boolean => /\+nadgrids=(?!@null\b)/.test(def);

/**
 * A box in EPSG:`code` (`def` its definition; null for 4326 and 3857, which proj4 knows) as a WGS84 box around it:
 * its edges sampled, not only its corners (a projected box's edges bow in longitude and latitude). Null when it
 * cannot be placed.
 */
export function toWgs84Bbox(code: number, def: string | null, box: [number, number, number, number]): [number, number, number, number] | null {
  const from = def ?? (code === 4326 ? 'EPSG:4326' : 'EPSG:3857');
  const t = proj4(from, 'EPSG:4326');
  const [x0, y0, x1, y1] = box;
  let out: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const N = 8;
  for (let i = 0; i <= N; i++) {
    const fx = x0 + ((x1 - x0) * i) / N;
    const fy = y0 + ((y1 - y0) * i) / N;
    for (const [x, y] of [[fx, y0], [fx, y1], [x0, fy], [x1, fy]] as [number, number][]) {
      const [lon, lat] = t.forward([x, y]);
      if (!Number.isFinite(lon) || !Number.isFinite(lat)) continue;
      out = [Math.min(out[0], lon!), Math.min(out[1], lat!), Math.max(out[2], lon!), Math.max(out[3], lat!)];
    }
  }
  return out.every(Number.isFinite) ? out : null;
}
