// Coordinate reference systems: a file's coordinates reprojected to WGS84 longitude/latitude (and the app's exports
// back to a chosen CRS) with proj4, from a definition string (the EPSG definitions are looked up by the caller:
// db/import/epsg.ts reads them from the epsg-index package; they are 40 MB, and this module is pure).
//
// The datum shift is the definition's own: +towgs84 (Helmert parameters, as PROJ and EPSG publish them), or +nadgrids
// (an NTv2 grid file, the only accurate shift for some datums: OSGB36, DHDN…), which the caller hands in when the
// user has it; without it the CRS is refused (grid_missing), never shifted by a cruder guess. A datum with neither,
// whose ellipsoid is not WGS84's or GRS 1980's, has no known shift: refused (datum_unknown), unless EPSG publishes a
// Helmert transformation the definitions leave out (PUBLISHED_SHIFTS).
import proj4 from 'proj4';

export interface CrsDefinition {
  /** The EPSG code; null for a CRS a file describes only in WKT. */
  code: number | null;
  name: string;
  proj4: string;
  /** Metres: how accurate the EPSG dataset says its transformation to WGS84 is, when it says. */
  accuracy: number | null;
  /** Where the CRS is used, [north, west, south, east] in degrees (epsg-index's order), when known. */
  bbox: [number, number, number, number] | null;
  /** The EPSG transformation supplied from PUBLISHED_SHIFTS, when the definition had none. */
  transformation?: string;
}

export type DatumShift =
  /** WGS84 itself, or a datum PROJ takes as WGS84 (ETRS89, RGF93, GRS 1980 datums: within a metre or so). */
  | { kind: 'none' }
  | { kind: 'helmert'; params: number[] }
  /** An NTv2 grid; `optional`: any one of them will do (PROJ's @name), else every one is needed. */
  | { kind: 'grid'; grids: string[]; optional?: boolean }
  | { kind: 'unknown' };

export type CrsErrorCode = 'crs_unknown' | 'crs_unsupported' | 'crs_ambiguous' | 'datum_unknown' | 'grid_missing' | 'grid_unreadable';

export class CrsError extends Error {
  constructor(readonly code: CrsErrorCode, message: string, readonly grids: readonly string[] = []) {
    super(message);
    this.name = 'CrsError';
  }
}

export const WGS84: CrsDefinition = { code: 4326, name: 'WGS 84', proj4: '+proj=longlat +datum=WGS84 +no_defs', accuracy: null, bbox: null };

/**
 * Helmert transformations EPSG publishes for datums whose definitions (PROJ's proj4 export, which epsg-index holds)
 * carry none, because PROJ prefers a grid there when it has one. NTF: "NTF to WGS 84 (1)", EPSG:1193, 2 m; the
 * grid (ntf_r93.gsb) is better where PROJ has it, which is why ogr2ogr's results differ by a metre or two.
 */
const PUBLISHED_SHIFTS: { datum: RegExp; ellipsoid: RegExp; towgs84: string; transformation: string; accuracy: number }[] = [
  { datum: /^NTF\b/, ellipsoid: /\+ellps=clrk80ign\b/, towgs84: '-168,-60,320', transformation: 'EPSG:1193 NTF to WGS 84 (1)', accuracy: 2 },
];

/**
 * Ellipsoids PROJ names that proj4js does not know by name (it has WGS 72 as "WGS7"), as PROJ defines them. Given a
 * name it does not know, proj4js silently uses WGS 84's ellipsoid: such a name is written out as its numbers here, and
 * any other unknown one refused (PROJ4_ELLIPSOIDS).
 */
const MISSING_ELLIPSOIDS: Record<string, string> = { wgs72: '+a=6378135 +rf=298.26', gsk2011: '+a=6378136.5 +rf=298.2564151' };
/** The ellipsoid names proj4js 2.22 knows (lib/constants/Ellipsoid.js), in lower case. */
const PROJ4_ELLIPSOIDS = new Set(['merit', 'sgs85', 'grs80', 'iau76', 'airy', 'apl4', 'nwl9d', 'mod_airy', 'andrae', 'aust_sa', 'grs67', 'bessel',
  'bess_nam', 'clrk66', 'clrk80', 'clrk80ign', 'clrk58', 'cpm', 'delmbr', 'engelis', 'evrst30', 'evrst48', 'evrst56', 'evrst69', 'evrstss', 'fschr60',
  'fschr60m', 'fschr68', 'helmert', 'hough', 'intl', 'kaula', 'lerch', 'mprts', 'new_intl', 'plessis', 'krass', 'seasia', 'walbeck', 'wgs60', 'wgs66',
  'wgs7', 'wgs84', 'sphere']);

/**
 * A definition proj4js reads as PROJ does: an ellipsoid it lacks written as its numbers; null when it names one
 * neither knows (used as WGS 84's, it would move positions by metres without a word).
 */
export function proj4Ready(def: string): string | null {
  const name = /\+ellps=(\S+)/.exec(def)?.[1];
  if (name === undefined || PROJ4_ELLIPSOIDS.has(name.toLowerCase())) return def;
  const numbers = MISSING_ELLIPSOIDS[name.toLowerCase()];
  return numbers ? def.replace(`+ellps=${name}`, numbers) : null;
}

/** The definition, with EPSG's published Helmert shift when it has no datum shift of its own and one applies. */
export function withPublishedShift(def: CrsDefinition): CrsDefinition {
  if (/\+(towgs84|nadgrids|datum)=/.test(def.proj4)) return def;
  const p = PUBLISHED_SHIFTS.find((s) => s.datum.test(def.name) && s.ellipsoid.test(def.proj4));
  if (!p) return def;
  return { ...def, proj4: `${def.proj4} +towgs84=${p.towgs84}`, accuracy: def.accuracy ?? p.accuracy, transformation: p.transformation };
}

interface ProjObject {
  a: number; rf?: number; b: number; projName: string;
  datum: { datum_type: number; datum_params?: number[]; grids?: { name: string; mandatory: boolean; isNull: boolean }[] | null };
}

/** proj4's datum types (lib/constants/values.js). */
const PJD_3PARAM = 1;
const PJD_7PARAM = 2;
const PJD_GRIDSHIFT = 3;
const PJD_WGS84 = 4;

export function parseProj(def: string): ProjObject {
  try {
    return proj4.Proj(def) as unknown as ProjObject;
  } catch (e) {
    throw new CrsError('crs_unsupported', `proj4 cannot read the definition ${def}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** WGS 84's and GRS 1980's ellipsoid (a within a millimetre, the flattenings differ by 1e-11). */
export const wgs84Ellipsoid = (p: { a: number; b: number }): boolean => Math.abs(p.a - 6378137) < 1e-3 && (Math.abs(p.b - 6356752.314) < 1e-2 || p.a === p.b);

export function datumShiftOf(def: string): DatumShift {
  const p = parseProj(def);
  const d = p.datum;
  if (d.datum_type === PJD_GRIDSHIFT) {
    const real = (d.grids ?? []).filter((g) => g && !g.isNull);
    const grids = real.map((g) => g.name);
    if (!grids.length) return { kind: 'none' };
    return real.every((g) => !g.mandatory) ? { kind: 'grid', grids, optional: true } : { kind: 'grid', grids };
  }
  if (d.datum_type === PJD_3PARAM || d.datum_type === PJD_7PARAM) return { kind: 'helmert', params: towgs84Of(def) };
  if (wgs84Ellipsoid(p)) return { kind: 'none' };
  // Zero parameters on another ellipsoid still change the ellipsoid: a Helmert shift of nothing.
  return d.datum_type === PJD_WGS84 ? { kind: 'helmert', params: towgs84Of(def) } : { kind: 'unknown' };
}

const towgs84Of = (def: string): number[] => (/\+towgs84=(\S+)/.exec(def)?.[1] ?? '').split(',').filter((v) => v !== '').map(Number);

/**
 * Grids handed to proj4, which keeps them by name for the whole process, with what the caller says they were read from
 * (a file's path, size and time), so that a file is read once and read again when it changes.
 */
const loadedGrids = new Map<string, string>();

/** The source `name` was loaded from (loadGrid), if it was. */
export const gridSource = (name: string): string | undefined => loadedGrids.get(name);

/**
 * An NTv2 grid (.gsb) for proj4 under `name`, the name definitions give it (+nadgrids=BETA2007.gsb), read from
 * `source`. Throws grid_unreadable when the bytes are not NTv2.
 */
export function loadGrid(name: string, data: ArrayBuffer, source: string): void {
  const problem = ntv2Problem(new Uint8Array(data));
  if (problem) throw new CrsError('grid_unreadable', `${name} is not an NTv2 grid file (.gsb): ${problem}`);
  try {
    const grid = proj4.nadgrid(name, data) as { subgrids: unknown[] };
    if (!grid.subgrids.length) throw new Error('it has no subgrids');
  } catch (e) {
    throw new CrsError('grid_unreadable', `${name} cannot be read as an NTv2 grid: ${e instanceof Error ? e.message : String(e)}`);
  }
  loadedGrids.set(name, source);
}

/**
 * Why `b` is not an NTv2 grid file, or null: its header (11 records, then each subgrid's 11 and its nodes of 16
 * bytes, in either byte order) must describe exactly the bytes there are, as proj4 reads them blindly.
 */
export function ntv2Problem(b: Uint8Array): string | null {
  if (b.length < 176 || new TextDecoder('latin1').decode(b.subarray(0, 8)) !== 'NUM_OREC') return 'it does not start with an NTv2 header';
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const little = v.getInt32(8, true) === 11;
  if (!little && v.getInt32(8, false) !== 11) return 'its header does not have 11 records';
  const subgrids = v.getInt32(40, little);
  if (!(subgrids >= 1 && subgrids <= 10_000)) return `it says it has ${subgrids} subgrids`;
  let at = 176;
  for (let i = 0; i < subgrids; i++) {
    if (at + 176 > b.length) return `subgrid ${i + 1} lies past the end of the file`;
    const nodes = v.getInt32(at + 168, little);
    const lat = v.getFloat64(at + 136, little);
    const lon = v.getFloat64(at + 152, little);
    if (!(nodes > 0) || !(lat > 0) || !(lon > 0)) return `subgrid ${i + 1} has no nodes or no spacing`;
    at += 176 + nodes * 16;
    if (at > b.length) return `subgrid ${i + 1}'s ${nodes} nodes lie past the end of the file`;
  }
  return null;
}

/**
 * Why the definition cannot be used, or null: a datum without a known shift, or a grid that is not `available` (the
 * caller found and loaded it for this file: a grid proj4 still holds from another file that is no longer there is
 * not used).
 */
export function unusable(def: CrsDefinition, available: ReadonlySet<string> = new Set()): CrsError | null {
  const shift = datumShiftOf(def.proj4);
  const label = crsLabel(def);
  if (shift.kind === 'unknown') {
    return new CrsError('datum_unknown', `${label} is on a datum Furrow knows no transformation to WGS84 for (its definition, ${def.proj4}, gives no datum shift)`);
  }
  if (shift.kind === 'grid') {
    const missing = shift.grids.filter((g) => !available.has(g) || !loadedGrids.has(g));
    if (shift.optional ? missing.length === shift.grids.length : missing.length > 0) {
      const which = shift.optional && missing.length > 1 ? `one of the NTv2 grid files ${missing.join(', ')}` : `the NTv2 grid file ${missing.join(', ')}`;
      return new CrsError('grid_missing', `${label} needs ${which} for its datum shift, the only accurate one, and Furrow does not have it`, missing);
    }
  }
  return null;
}

/** "EPSG:25830 ETRS89 / UTM zone 30N", or the WKT's own name. */
export const crsLabel = (def: Pick<CrsDefinition, 'code' | 'name'>): string => (def.code === null ? `"${def.name}"` : `EPSG:${def.code} (${def.name})`);

export interface Reprojector {
  def: CrsDefinition;
  shift: DatumShift;
  /** Longitude and latitude in WGS84 of (x, y) in the CRS; null where it has none (outside the projection or the grid). */
  toWgs84(x: number, y: number): [number, number] | null;
  /** (x, y) in the CRS of a WGS84 longitude and latitude; null where it has none. */
  fromWgs84(lon: number, lat: number): [number, number] | null;
  /** Decimals worth writing in the CRS's units: a tenth of a millimetre for metres, 9 for degrees. */
  decimals: number;
}

/** Transforms to and from WGS84; throws CrsError when the definition cannot be used (unusable). */
export function reprojector(def: CrsDefinition, grids: ReadonlySet<string> = new Set()): Reprojector {
  const why = unusable(def, grids);
  if (why) throw why;
  // Optional grids (@name) not found: proj4 passes over them (and over one outside its area), as PROJ does.
  const shift = datumShiftOf(def.proj4);
  const conv = proj4(def.proj4, WGS84.proj4);
  const geographic = parseProj(def.proj4).projName === 'longlat';
  const call = (f: (p: number[]) => number[], x: number, y: number): [number, number] | null => {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
    let out: number[] | undefined;
    try {
      out = f([x, y]);
    } catch {
      return null;
    }
    return out && Number.isFinite(out[0]) && Number.isFinite(out[1]) ? [out[0]!, out[1]!] : null;
  };
  return {
    def, shift, decimals: geographic ? 9 : 4,
    toWgs84: (x, y) => call(conv.forward, x, y),
    fromWgs84: (lon, lat) => call(conv.inverse, lon, lat),
  };
}

const DEPTH: Record<string, number> = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 };

/**
 * A GeoJSON geometry's positions replaced, in place, by `fn` of their first two numbers (a third and more are kept):
 * rounded to `decimals`. Positions that are not pairs of finite numbers are left for validation to name. Returns the
 * first position `fn` has no answer for (then the geometry is left part-done: the caller drops it), or null.
 */
export function reprojectGeometry(geometry: unknown, fn: (x: number, y: number) => [number, number] | null, decimals: number): number[] | null {
  if (typeof geometry !== 'object' || geometry === null) return null;
  const g = geometry as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (g.type === 'GeometryCollection' && Array.isArray(g.geometries)) {
    for (const part of g.geometries) {
      const bad = reprojectGeometry(part, fn, decimals);
      if (bad) return bad;
    }
    return null;
  }
  const depth = typeof g.type === 'string' ? DEPTH[g.type] : undefined;
  if (depth === undefined) return null;
  const scale = 10 ** decimals;
  const walk = (v: unknown, d: number): number[] | null => {
    if (!Array.isArray(v)) return null;
    if (d === 0) {
      const [x, y] = v as unknown[];
      if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) return null;
      const out = fn(x, y);
      if (!out) return [x, y];
      v[0] = Math.round(out[0] * scale) / scale;
      v[1] = Math.round(out[1] * scale) / scale;
      return null;
    }
    for (const c of v) {
      const bad = walk(c, d - 1);
      if (bad) return bad;
    }
    return null;
  };
  return walk(g.coordinates, depth);
}
