// The EPSG CRS a WKT without an EPSG code is (GDAL, QGIS and ArcGIS write a Shapefile's .prj in ESRI's WKT, which
// names no code: PROJCS["ETRS_1989_UTM_Zone_30N",…]). Its projection and ellipsoid are compared number by number with
// every EPSG definition (parsed by proj4 both, so "+proj=utm +zone=30" and a Transverse Mercator at −3° with a scale
// of 0.9996 compare equal); of the ones that fit, the datum decides, by its name. Several CRSs may fit and share one
// datum shift (ETRS89 / UTM zone 30N and its northing-first twin): any is right, the best-named is shown. When the
// ones that fit best shift differently, the file does not say which it is: crs_ambiguous, never a guess; when none of
// them has the datum the file names, none is taken.
import { datumShiftOf, parseProj, proj4Ready, withPublishedShift, type CrsDefinition, type DatumShift } from './crs.ts';
import type { WktCrs } from './wkt.ts';

/** An entry of epsg-index (its all.json values, its s/<code>.json files). */
export interface EpsgEntry {
  code: string; kind: string; name: string; wkt: string | null; proj4: string | null;
  bbox: [number, number, number, number] | null; accuracy: number | null;
}

/**
 * An entry as a definition (with the published shift it may lack: crs.ts withPublishedShift), or null when it has
 * none proj4 can read as PROJ does (crs.ts proj4Ready).
 */
export function definitionOf(e: EpsgEntry): CrsDefinition | null {
  const proj4 = e.proj4 && proj4Ready(e.proj4);
  if (!proj4) return null;
  const bbox = Array.isArray(e.bbox) && e.bbox.length === 4 && e.bbox.every((v) => typeof v === 'number') ? e.bbox : null;
  return withPublishedShift({ code: Number(e.code), name: e.name, proj4, accuracy: typeof e.accuracy === 'number' ? e.accuracy : null, bbox });
}

/** Projected and geographic 2D CRSs: what a file's coordinates can be in. */
export const HORIZONTAL_KINDS = new Set(['CRS-PROJCRS', 'CRS-GEOGCRS']);

/**
 * EPSG's own codes: epsg-index also holds ESRI's (37001–37260, 53001–54053, 102001…), which are not EPSG's and which
 * ogr2ogr would not call EPSG:…; they are left out.
 */
export const isEpsgCode = (code: number): boolean => code > 0 && code < 32768;

type Sig = Record<string, number> & { proj: number };
const PROJ_FAMILY: Record<string, string> = { utm: 'tmerc', etmerc: 'tmerc', tmerc: 'tmerc' };
const names = new Map<string, number>();
const projId = (name: string) => {
  const n = PROJ_FAMILY[name.toLowerCase()] ?? name.toLowerCase();
  if (!names.has(n)) names.set(n, names.size + 1);
  return names.get(n)!;
};

/** The numbers that make a projection and its ellipsoid, as proj4 reads them (radians, metres). */
function signature(def: string): Sig | null {
  let p: Record<string, unknown>;
  try {
    p = parseProj(def) as unknown as Record<string, unknown>;
  } catch {
    return null;
  }
  const n = (k: string, dflt: number) => (typeof p[k] === 'number' && Number.isFinite(p[k]) ? (p[k] as number) : dflt);
  const lat0 = n('lat0', 0);
  const lat1 = n('lat1', lat0);
  return {
    proj: projId(String(p['projName'])), lat0, lat1, lat2: n('lat2', lat1), long0: n('long0', 0), lat_ts: n('lat_ts', 0), k0: n('k0', 1),
    x0: n('x0', 0), y0: n('y0', 0), a: n('a', 0), b: n('b', 0), pm: n('from_greenwich', 0), to_meter: n('to_meter', 1),
  };
}

/** Within: radians to 1e-9 (6 mm on the ground), metres to 1 cm (a and b from rf differ in the tenths of a mm). */
const TOLERANCE: Record<string, number> = { lat0: 1e-9, lat1: 1e-9, lat2: 1e-9, long0: 1e-9, lat_ts: 1e-9, pm: 1e-9, k0: 1e-10, x0: 1e-3, y0: 1e-3, a: 1e-2, b: 1e-2, to_meter: 1e-9 };

function same(a: Sig, b: Sig): boolean {
  if (a.proj !== b.proj) return false;
  for (const [k, tol] of Object.entries(TOLERANCE)) if (!(Math.abs(a[k]! - b[k]!) <= tol)) return false;
  return true;
}

/** Words of a datum's names: lower case, letters and digits apart, years as two digits (ETRS_1989 and ETRS89 alike). */
function words(...texts: string[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts) {
    for (const w of t.toLowerCase().replace(/([a-z])(\d)|(\d)([a-z])/g, '$1$3 $2$4').split(/[^a-z0-9]+/)) {
      if (!w || w === 'd' || w === 'gcs' || w === 'datum') continue;
      out.add(/^(19|20)\d\d$/.test(w) ? w.slice(2) : w);
    }
  }
  return out;
}

const overlap = (a: Set<string>, b: Set<string>) => [...a].filter((w) => b.has(w)).length;
/**
 * How alike two names are: the words they share, less a little for each word only the candidate has, so that
 * "ETRS_1989_UTM_Zone_30N" is ETRS89 / UTM zone 30N rather than its twin "ETRS89 / UTM zone 30N (N-E)".
 */
const likeness = (mine: Set<string>, theirs: Set<string>) => {
  const shared = overlap(mine, theirs);
  return shared - (theirs.size - shared) / 100;
};

/** The datum's, the geographic CRS's and the CRS's own names in an entry's WKT (or its name's part before " / "). */
function datumWords(e: EpsgEntry): Set<string> {
  const datum = e.wkt ? /DATUM\["([^"]*)"/.exec(e.wkt)?.[1] ?? '' : '';
  const geog = e.wkt ? /GEOGCS\["([^"]*)"/.exec(e.wkt)?.[1] ?? '' : '';
  return words(datum, geog, e.name.split(' / ')[0]!);
}

/** A datum shift as a key: two CRSs with equal keys put the same coordinates in the same place. */
export function shiftKey(s: DatumShift): string {
  switch (s.kind) {
    case 'none': return 'none';
    case 'unknown': return 'unknown';
    case 'grid': return `grid:${s.grids.join(',')}`;
    case 'helmert': return s.params.every((v) => v === 0) ? 'helmert:0' : `helmert:${s.params.join(',')}`;
  }
}

export type WktMatch =
  | { kind: 'match'; def: CrsDefinition }
  | { kind: 'ambiguous'; defs: CrsDefinition[] }
  | { kind: 'none' };

/** The EPSG CRS `wkt` is, among `entries` (epsg-index's); see the top of this file. */
export function matchWkt(wkt: WktCrs, entries: Iterable<EpsgEntry>): WktMatch {
  const mine = signature(wkt.proj4);
  if (!mine) return { kind: 'none' };
  const wantKind = wkt.kind === 'projected' ? 'CRS-PROJCRS' : 'CRS-GEOGCRS';
  const wantProj = wkt.kind === 'projected' ? /\+proj=(\w+)/.exec(wkt.proj4)![1]! : 'longlat';
  const family = PROJ_FAMILY[wantProj] ?? wantProj;
  const fits: { e: EpsgEntry; def: CrsDefinition; key: string }[] = [];
  for (const e of entries) {
    if (e.kind !== wantKind || !e.proj4 || !isEpsgCode(Number(e.code))) continue;
    // A cheap look at the +proj= first: proj4 parses only the ones of the same projection.
    const proj = /\+proj=(\w+)/.exec(e.proj4)?.[1] ?? '';
    if ((PROJ_FAMILY[proj] ?? proj) !== family) continue;
    const def = definitionOf(e);
    const sig = def && signature(def.proj4);
    if (!def || !sig || !same(mine, sig)) continue;
    fits.push({ e, def, key: shiftKey(datumShiftOf(def.proj4)) });
  }
  // A CRS without a known datum shift is no candidate where one with a shift fits as well.
  const usable = fits.some((f) => f.key !== 'unknown') ? fits.filter((f) => f.key !== 'unknown') : fits;
  if (usable.length === 0) return { kind: 'none' };
  const theirs = words(wkt.datum, wkt.geogcs);
  const scored = usable.map((f) => ({ ...f, datum: overlap(theirs, datumWords(f.e)), name: likeness(words(wkt.name), words(f.e.name)) }));
  const top = Math.max(...scored.map((f) => f.datum));
  const best = scored.filter((f) => f.datum === top);
  // GRS 1980 datums taken as WGS84 and zero Helmert shifts put coordinates in the same place.
  const keyOf = (k: string) => (k === 'helmert:0' ? 'none' : k);
  // Nothing is taken from a CRS whose datum the file does not name: "D_Unknown" on the International ellipsoid in UTM
  // zone 30N fits ED50's numbers, but shifting it as ED50 would be a guess (and naming a GRS 1980 one after whichever
  // EPSG CRS fits, Mauritania 1999's, say, would be wrong). The WKT then stands for itself (crs-source.ts).
  if (top === 0) return { kind: 'none' };
  if (new Set(best.map((f) => keyOf(f.key))).size > 1) {
    return { kind: 'ambiguous', defs: best.sort((a, b) => b.name - a.name || a.def.code! - b.def.code!).map((f) => f.def) };
  }
  best.sort((a, b) => b.name - a.name || a.def.code! - b.def.code!);
  return { kind: 'match', def: best[0]!.def };
}
