// Zipped Shapefile (one layer: .shp with its .dbf, optional .prj and .cpg) → GeoJSON features, in the coordinate system
// its .prj names (crs-source.ts: read.ts reprojects them to WGS84). A layer without a .prj whose coordinates cannot be
// longitude/latitude is refused: importing metres as degrees would put every parcel in the wrong place (or nowhere),
// and nothing says which metres they are. The DBF's encoding: dbf-encoding.ts.
// PointZ and PolygonZ keep their z as the third number of each position (shape-z.ts).

import { unzipSync } from 'fflate';
import * as shapefile from 'shapefile';
import { ImportError, SAY_CRS } from './errors.ts';
import { checkInflated, checkZip, zipEntries } from './zip-guard.ts';
import { dbfEncoding } from './dbf-encoding.ts';
import { attachZ, readShapeZ } from './shape-z.ts';
import { isWgs84Prj } from '../../core/geo/wkt.ts';
import type { CrsDefinition } from '../../core/geo/crs.ts';

/**
 * The features of a zipped shapefile, or of the KML inside a KMZ (a zip with a .kml and no .shp), with what the
 * user should know about how they were read (ImportReport.notes), and the CRS they are in (null: WGS84).
 */
export async function readZip(bytes: Uint8Array, fileName: string): Promise<{ features: unknown[]; notes: string[]; crs: CrsDefinition | null; kmz?: true }> {
  let entries: Record<string, Uint8Array>;
  // Only the files a layer is made of are inflated; macOS resource forks (__MACOSX/, ._x) are not.
  const needed = (name: string) => !/(^|\/)(__MACOSX\/|\._)/.test(name) && /\.(shp|dbf|prj|cpg|kml)$/i.test(name);
  // Sizes, ratios and overlaps from the central directory first: a zip bomb is refused before it inflates.
  checkZip(bytes, fileName, needed);
  try {
    entries = unzipSync(bytes, { filter: (f) => needed(f.name) });
  } catch (e) {
    throw new ImportError('unreadable', `${fileName} is not a readable zip file: ${(e as Error).message}`);
  }
  checkInflated(entries, zipEntries(bytes, fileName), fileName);
  const names = Object.keys(entries);
  const shps = names.filter((n) => /\.shp$/i.test(n));
  if (shps.length === 0) {
    if (names.some((n) => /\.kml$/i.test(n))) return { features: (await import('./kml.ts')).readKmz(entries, fileName), notes: [], crs: null, kmz: true };
    throw new ImportError('unsupported_format', `${fileName} holds no shapefile (.shp) and no KML`);
  }
  if (shps.length > 1) {
    throw new ImportError('unsupported_format', `${fileName} holds ${shps.length} shapefiles (${shps.join(', ')}); import them one at a time`);
  }
  const shpName = shps[0]!;
  const stem = shpName.slice(0, -4).toLowerCase();
  const companion = (ext: string) => {
    const name = names.find((n) => n.toLowerCase() === `${stem}.${ext}`);
    return name === undefined ? undefined : entries[name];
  };
  const shp = entries[shpName]!;
  const dbf = companion('dbf');
  const prj = companion('prj');
  const prjText = prj === undefined ? '' : new TextDecoder().decode(prj).trim();
  // The CRS module (proj4, the EPSG lookup) loads only for a layer in another CRS than WGS84.
  const crs = prjText === '' || isWgs84Prj(prjText) ? null : (await import('./crs-source.ts')).crsOfPrj(prjText, fileName);

  const notes: string[] = [];
  const encoding = dbfEncoding(companion('cpg'), dbf, fileName);
  if (encoding.note) notes.push(encoding.note);
  let collection: { features: unknown[]; bbox?: number[] };
  try {
    collection = await shapefile.read(arrayBuffer(shp), dbf && arrayBuffer(dbf), { encoding: encoding.encoding });
  } catch (e) {
    throw new ImportError('unreadable', `${fileName}: ${shpName} could not be read as a shapefile: ${(e as Error).message}`);
  }
  checkRecordCounts(shp, dbf, collection.features.length, fileName, shpName);
  const box = collection.bbox;
  if (prjText === '' && box && collection.features.length > 0 && !(box[0]! >= -180 && box[2]! <= 180 && box[1]! >= -90 && box[3]! <= 90)) {
    throw new ImportError('projection',
      `${fileName} has no .prj and its coordinates (${box.map((v) => Math.round(v)).join(', ')}) are not longitude/latitude: ${SAY_CRS}`);
  }
  for (const f of collection.features) dropBlankDates(f);
  const z = readShapeZ(shp);
  if (z === null && [11, 15].includes(shapeType(shp))) notes.push(`${fileName}: the heights (z) of ${shpName} could not be read: imported without them`);
  if (z !== null && !attachZ(collection.features, shp, z)) notes.push(`${fileName}: the heights (z) of ${shpName} do not line up with its shapes: imported without them`);
  return { features: collection.features, notes, crs };
}

const shapeType = (shp: Uint8Array): number => (shp.length >= 36 ? new DataView(shp.buffer, shp.byteOffset, shp.byteLength).getInt32(32, true) : 0);

// The reader turns a blank DBF date ("        ") into new Date(0, -1, 0), i.e. 30 Nov 1899: that is "no date".
const BLANK_DATE = new Date(0, -1, 0).getTime();

function dropBlankDates(feature: unknown): void {
  const props = (feature as { properties?: Record<string, unknown> | null }).properties;
  if (!props) return;
  for (const [k, v] of Object.entries(props)) if (v instanceof Date && v.getTime() === BLANK_DATE) props[k] = null;
}

function arrayBuffer(u: Uint8Array): ArrayBuffer {
  return u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;
}

/**
 * What was read against what the files declare. The reader stops quietly at a record whose length points past the
 * end (an outside test got "Imported 1 parcel(s)" from 3 records) and pairs shapes with DBF rows by position (a DBF
 * short of rows renamed parcels "S 2", "S 3"): a damaged layer is refused whole, saying what does not add up.
 */
export function checkRecordCounts(shp: Uint8Array, dbf: Uint8Array | undefined, read: number, fileName: string, shpName: string): void {
  const problems: string[] = [];
  const v = new DataView(shp.buffer, shp.byteOffset, shp.byteLength);
  if (shp.length < 100) problems.push(`the .shp is ${shp.length} bytes, shorter than its 100-byte header`);
  else {
    const declared = v.getInt32(24, false) * 2;
    if (declared !== shp.length) problems.push(`the .shp header gives a length of ${declared} bytes, the file has ${shp.length}`);
  }
  let records = 0;
  for (let p = 100; p + 8 <= shp.length; records++) {
    const len = v.getInt32(p + 4, false) * 2;
    if (len < 4 || p + 8 + len > shp.length) {
      problems.push(`record ${records + 1} of the .shp claims ${len} bytes, past the end of the file`);
      records = -1;
      break;
    }
    p += 8 + len;
  }
  if (records >= 0 && records !== read) problems.push(`the .shp holds ${records} records, ${read} could be read`);
  if (dbf !== undefined && dbf.length >= 12) {
    const d = new DataView(dbf.buffer, dbf.byteOffset, dbf.byteLength);
    const rows = d.getUint32(4, true);
    const headerLength = d.getUint16(8, true);
    const rowLength = d.getUint16(10, true);
    if (headerLength + rows * rowLength > dbf.length) {
      problems.push(`the .dbf declares ${rows} rows of ${rowLength} bytes after a ${headerLength}-byte header, more than its ${dbf.length} bytes`);
    }
    if (records >= 0 && rows !== records) problems.push(`the .dbf holds ${rows} rows for the ${records} shapes of the .shp`);
  }
  if (problems.length) {
    throw new ImportError('unreadable', `${fileName}: ${shpName} is damaged, so nothing was imported: ${problems.join('; ')}. Export the layer again (or repair it, e.g. with ogr2ogr)`);
  }
}
