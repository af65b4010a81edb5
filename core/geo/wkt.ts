// Well-known text of a coordinate reference system (a Shapefile's .prj): read into a tree, and a WKT1 one (OGC's or
// ESRI's flavour, which is what GDAL, QGIS and ArcGIS write into a .prj) described as a proj4 definition with the
// numbers in the units PROJ takes (degrees, metres), so that it can be compared with the EPSG definitions
// (crs-match.ts) or used as it stands. Pure: no I/O.
//
// Not everything WKT can say is read: the projections below are the ones cadastral and national grids use; any other
// is refused by name (crs_unsupported) rather than guessed. WKT2 (PROJCRS[…]) is read for its ID["EPSG",…] only.

export interface WktNode { key: string; args: WktValue[] }
/** A quoted string, a number, a nested node, or a bare word (WKT2's enumerations: AXIS["x",EAST]). */
export type WktValue = string | number | WktNode | { word: string };

export class WktError extends Error {}

/** The tree of a WKT text; throws WktError when it is not WKT. */
export function parseWkt(text: string): WktNode {
  let i = 0;
  const s = text;
  const ws = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new WktError(`${what} at character ${i + 1}`);
  };
  const node = (depth: number): WktNode => {
    if (depth > 32) fail('nested too deeply');
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i, i + 64));
    if (!m) fail('expected a keyword');
    i += m![0].length;
    ws();
    const open = s[i];
    if (open !== '[' && open !== '(') fail(`expected [ after ${m![0]}`);
    const close = open === '[' ? ']' : ')';
    i++;
    const args: WktValue[] = [];
    for (;;) {
      ws();
      const c = s[i];
      if (c === undefined) fail('unexpected end');
      if (c === close && args.length === 0) break;
      if (c === '"') {
        let v = '';
        for (i++; ; i++) {
          if (i >= s.length) fail('unterminated string');
          if (s[i] === '"') {
            if (s[i + 1] === '"') {
              v += '"';
              i++;
              continue;
            }
            i++;
            break;
          }
          v += s[i];
        }
        args.push(v);
      } else if (/[-+.\d]/.test(c!)) {
        const n = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(s.slice(i, i + 64));
        if (!n) fail('expected a number');
        args.push(Number(n![0]));
        i += n![0].length;
      } else {
        const start = i;
        const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i, i + 64))?.[0];
        if (!word) fail('expected a value');
        i += word!.length;
        ws();
        if (s[i] === '[' || s[i] === '(') {
          i = start;
          args.push(node(depth + 1));
        } else {
          args.push({ word: word! });
        }
      }
      ws();
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === close) break;
      if (i >= s.length) fail('unexpected end');
      fail(`expected , or ${close}`);
    }
    i++;
    return { key: m![0].toUpperCase(), args };
  };
  const root = node(0);
  ws();
  if (i < s.length) fail('text after the end');
  return root;
}

const isNode = (v: WktValue | undefined): v is WktNode => typeof v === 'object' && v !== null && 'key' in v;
export const childOf = (n: WktNode, ...keys: string[]): WktNode | undefined => n.args.find((a): a is WktNode => isNode(a) && keys.includes(a.key));
export const childrenOf = (n: WktNode, key: string): WktNode[] => n.args.filter((a): a is WktNode => isNode(a) && a.key === key);
export const nameOf = (n: WktNode | undefined): string => (n && typeof n.args[0] === 'string' ? n.args[0] : '');
const num = (n: WktNode | undefined, at: number): number | undefined => (n && typeof n.args[at] === 'number' ? n.args[at] : undefined);

/** The EPSG code the text gives its CRS itself (AUTHORITY["EPSG","25830"] or WKT2's ID["EPSG",25830]), if any. */
export function epsgOf(root: WktNode): number | null {
  const id = childOf(root, 'AUTHORITY', 'ID');
  if (!id || String(id.args[0]).toUpperCase() !== 'EPSG') return null;
  const code = Number(id.args[1]);
  return Number.isInteger(code) && code > 0 ? code : null;
}

/** What a WKT1 CRS says, in PROJ's units: degrees for angles, metres for lengths. */
export interface WktCrs {
  kind: 'projected' | 'geographic';
  /** PROJCS's or GEOGCS's own name ("ETRS_1989_UTM_Zone_30N"). */
  name: string;
  datum: string;
  geogcs: string;
  /** A proj4 definition of it: with +towgs84 only when the text gives TOWGS84. */
  proj4: string;
  /** The text gives a datum shift to WGS84 (TOWGS84) of its own. */
  towgs84: boolean;
}

/** WKT1 projection names (OGC's and ESRI's, lower case, without spaces and underscores) → PROJ's. */
const PROJECTIONS: Record<string, string> = {
  transversemercator: 'tmerc', gausskruger: 'tmerc', transversemercatorsouthoriented: 'tmerc',
  lambertconformalconic: 'lcc', lambertconformalconic1sp: 'lcc', lambertconformalconic2sp: 'lcc',
  lambertazimuthalequalarea: 'laea', mercator: 'merc', mercator1sp: 'merc', mercator2sp: 'merc',
  albers: 'aea', albersconicequalarea: 'aea', obliquestereographic: 'sterea', doublestereographic: 'sterea',
  polarstereographic: 'stere', stereographicnorthpole: 'stere', stereographicsouthpole: 'stere',
  cassinisoldner: 'cass', cassini: 'cass', equidistantconic: 'eqdc', polyconic: 'poly', sinusoidal: 'sinu',
  equirectangular: 'eqc', equidistantcylindrical: 'eqc', mercatorauxiliarysphere: 'merc', popularvisualisationpseudomercator: 'merc',
};

/** WKT1 parameter names (lower case, without spaces and underscores) → PROJ's; angles are in the GEOGCS's unit. */
type Unit = 'angle' | 'length' | 'scale';
const PARAMETERS: Record<string, { key: string; unit: Unit }> = {
  falseeasting: { key: 'x_0', unit: 'length' }, falsenorthing: { key: 'y_0', unit: 'length' },
  centralmeridian: { key: 'lon_0', unit: 'angle' }, longitudeofcenter: { key: 'lon_0', unit: 'angle' }, longitudeoforigin: { key: 'lon_0', unit: 'angle' },
  longitudeofnaturalorigin: { key: 'lon_0', unit: 'angle' },
  latitudeoforigin: { key: 'lat_0', unit: 'angle' }, latitudeofcenter: { key: 'lat_0', unit: 'angle' }, latitudeofnaturalorigin: { key: 'lat_0', unit: 'angle' },
  scalefactor: { key: 'k_0', unit: 'scale' }, scalefactoratnaturalorigin: { key: 'k_0', unit: 'scale' },
  standardparallel1: { key: 'lat_1', unit: 'angle' }, standardparallel2: { key: 'lat_2', unit: 'angle' },
  latitudeoftruescale: { key: 'lat_ts', unit: 'angle' },
};

/**
 * Prime meridians by name, in degrees east of Greenwich (EPSG's values, as PROJ has them): ESRI writes Paris as
 * 2.33722917 in degrees where its GEOGCS's unit is the grad, OGC WKT as 2.5969213 grads, so a known name decides.
 */
const MERIDIANS: Record<string, number> = {
  greenwich: 0, paris: 2.337229166666667, lisbon: -9.131906111111112, bogota: -74.08091666666667, madrid: -3.687938888888889,
  rome: 12.45233333333333, bern: 7.439583333333333, jakarta: 106.8077194444444, ferro: -17.66666666666667, brussels: 4.367975,
  stockholm: 18.05827777777778, athens: 23.7163375, oslo: 10.72291666666667,
};

/**
 * Whether a .prj is geographic WGS84 (GEOGCS on the WGS 1984 datum with the Greenwich meridian, or EPSG:4326): then
 * nothing is reprojected. TOWGS84[…] names WGS84 in every CRS that has a datum shift to it (ED50, Tokyo, NTF…): it says
 * nothing about this CRS being WGS84, and matching it once imported those files hundreds of metres to kilometres off.
 */
export function isWgs84Prj(prj: string): boolean {
  const wkt = prj.toUpperCase().replace(/\s+/g, ' ').replace(/TOWGS84\[[^\]]*\]/g, '').trim();
  if (wkt === 'EPSG:4326') return true;
  const geographic = /^(GEOGCS|GEOGCRS|GEODCRS)\[/.test(wkt);
  const datum = /DATUM\["([^"]*)"/.exec(wkt)?.[1];
  const wgs84 = datum !== undefined ? /^(D_)?WGS[ _]?(19)?84$/.test(datum) || /^WORLD GEODETIC SYSTEM 1984/.test(datum) : /WGS[ _]?(19)?84|EPSG"?[,:]\s*"?4326\b/.test(wkt);
  // A prime meridian other than Greenwich (NTF's Paris, in grads) shifts every longitude.
  const meridian = /PRIMEM\["[^"]*", ?(-?[\d.]+(?:E-?\d+)?)/.exec(wkt);
  return geographic && wgs84 && (!meridian || Number(meridian[1]) === 0);
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const DEGREE = Math.PI / 180;

/** Reads a WKT1 PROJCS or GEOGCS; throws WktError with what it cannot read. */
export function describeWkt(root: WktNode): WktCrs {
  const projected = root.key === 'PROJCS';
  if (!projected && root.key !== 'GEOGCS') throw new WktError(`a ${root.key}[…] is not a projected or geographic CRS in WKT1`);
  const geogcs = projected ? childOf(root, 'GEOGCS') : root;
  if (!geogcs) throw new WktError('the PROJCS has no GEOGCS');
  const datum = childOf(geogcs, 'DATUM');
  const spheroid = datum && childOf(datum, 'SPHEROID', 'ELLIPSOID');
  const a = num(spheroid, 1);
  const rf = num(spheroid, 2);
  if (a === undefined || rf === undefined || !(a > 0) || rf < 0) throw new WktError('its DATUM has no SPHEROID with a semi-major axis and an inverse flattening');
  // Radians per unit of the GEOGCS's angles (degree 0.0174532925199433, grad 0.0157079632679489).
  const angular = num(childOf(geogcs, 'UNIT'), 1) ?? DEGREE;
  // To 1e-10° (a hundredth of a millimetre): ESRI's grad factor, 0.0157079632679489, makes 52 grads 46.799999999999805°.
  const toDegrees = (v: number) => Math.round(((v * angular) / DEGREE) * 1e10) / 1e10;
  const primem = childOf(geogcs, 'PRIMEM');
  const pmName = squash(nameOf(primem));
  const pm = pmName in MERIDIANS ? MERIDIANS[pmName]! : toDegrees(num(primem, 1) ?? 0);
  const towgs84 = datum && childOf(datum, 'TOWGS84');
  const shift = towgs84?.args.filter((v): v is number => typeof v === 'number') ?? [];
  const parts: string[] = [];
  if (projected) {
    const method = nameOf(childOf(root, 'PROJECTION'));
    const proj = PROJECTIONS[squash(method)];
    if (!proj) throw new WktError(`its projection ${method || '(none)'} is not one Furrow reads`);
    parts.push(`+proj=${proj}`);
    if (squash(method) === 'transversemercatorsouthoriented') parts.push('+axis=wsu');
    const linear = num(childOf(root, 'UNIT'), 1) ?? 1;
    for (const p of childrenOf(root, 'PARAMETER')) {
      const known = PARAMETERS[squash(nameOf(p))];
      const v = num(p, 1);
      if (!known || v === undefined) continue;
      // False easting and northing are in the PROJCS's unit; PROJ takes them in metres whatever +to_meter says.
      parts.push(`+${known.key}=${known.unit === 'angle' ? toDegrees(v) : known.unit === 'length' ? v * linear : v}`);
    }
    if (linear !== 1) parts.push(`+to_meter=${linear}`);
  } else {
    parts.push('+proj=longlat');
  }
  // Web Mercator (ESRI's Mercator_Auxiliary_Sphere, EPSG:3857) projects WGS84 coordinates as if on a sphere.
  const sphere = projected && /^(mercatorauxiliarysphere|popularvisualisationpseudomercator)$/.test(squash(nameOf(childOf(root, 'PROJECTION'))));
  parts.push(`+a=${a}`, rf === 0 || sphere ? `+b=${a}` : `+rf=${rf}`);
  if (sphere) parts.push('+nadgrids=@null');
  if (pm !== 0) parts.push(`+pm=${pm}`);
  if (shift.length === 3 || shift.length === 7) parts.push(`+towgs84=${shift.join(',')}`);
  parts.push('+no_defs');
  return { kind: projected ? 'projected' : 'geographic', name: nameOf(root), datum: nameOf(datum), geogcs: nameOf(geogcs), proj4: parts.join(' '), towgs84: shift.length > 0 };
}
