// Reads an import file into GeoJSON features, whatever its format.

import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ImportError, REPROJECT } from './errors.ts';
import { isFurrowExport } from './furrow-format.ts';
import { splitFeatureCollection, type SplitCollection } from './geojson-split.ts';
import { readKml } from './kml.ts';
import { readZip } from './shapefile.ts';

export type ImportFormat = 'geojson' | 'kml' | 'zip';

export interface SourceFeatures {
  format: ImportFormat;
  features: unknown[];
  /** A GeoJSON export of Furrow's own (see furrow-format.ts). */
  furrowExport: boolean;
  /** What reading the file did that the user should know about (ImportReport.notes). */
  notes?: string[];
}

const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']);

/**
 * A GeoJSON FeatureCollection left unparsed: the file in shared memory (for worker threads) and where each
 * feature lies in it (geojson-split.ts). The import parses it slice by slice.
 */
export interface SplitSource {
  format: 'geojson';
  bytes: Uint8Array;
  split: SplitCollection;
  furrowExport: boolean;
  notes?: string[];
}

/**
 * The file's features, parsed; or with `split`, a FeatureCollection may come back unparsed (SplitSource). A
 * file the split does not take (another format or shape, anything odd, a refused crs) is parsed whole as
 * always, so its errors are exactly the same either way.
 */
export async function readImportSource(file: string, split: boolean): Promise<SourceFeatures | SplitSource> {
  const name = basename(file);
  let bytes: Uint8Array;
  try {
    bytes = await readShared(file);
  } catch (e) {
    throw new ImportError('unreadable', `${name} cannot be read: ${(e as Error).message}`);
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const format = detect(buffer, extname(file).toLowerCase());
  if (format === 'zip') return { format, ...(await readZip(buffer, name)), furrowExport: false };
  // GeoJSON and KML are read as UTF-8: bytes that are not become U+FFFD, which the user is told, not left to find.
  const notes = isUtf8(buffer) ? [] : [`${name} is not valid UTF-8: the bytes that are not were read as U+FFFD (\uFFFD); save the file as UTF-8 to keep those characters`];
  if (format === 'geojson' && split) {
    const bom = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
    const parts = splitFeatureCollection(bytes, bom);
    if (parts && crsAccepted(parts.members['crs'])) return { format, bytes, split: parts, furrowExport: isFurrowExport(parts.members), notes };
  }
  const text = buffer.toString('utf8').replace(/^\uFEFF/, '');
  if (format === 'kml') return { format, features: readKml(text, name), furrowExport: false, notes };
  if (format === 'geojson') {
    const source = readGeoJson(text, name);
    return { ...source, notes: [...notes, ...(source.notes ?? [])] };
  }
  throw new ImportError('unsupported_format', `${name}: unknown format; import GeoJSON (.geojson, .json), KML (.kml, .kmz) or a zipped Shapefile (.zip)`);
}

/** The whole file in shared memory, which worker threads read without a copy. */
async function readShared(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let done = 0;
    while (done < size) {
      const { bytesRead } = await handle.read(bytes, done, size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return bytes.subarray(0, done);
  } finally {
    await handle.close();
  }
}

const crsAccepted = (crs: unknown): boolean => {
  try {
    checkCrs(crs, '');
    return true;
  } catch {
    return false;
  }
};

/** The zip signature decides first (a .json that is really a zip is still a zip); then the extension; then a sniff. */
function detect(bytes: Buffer, ext: string): ImportFormat | null {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return 'zip';
  if (ext === '.geojson' || ext === '.json') return 'geojson';
  if (ext === '.kml') return 'kml';
  const head = bytes.subarray(0, 1024).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('{')) return 'geojson';
  if (head.startsWith('<') && head.includes('<kml')) return 'kml';
  return null;
}

function readGeoJson(text: string, name: string): SourceFeatures {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ImportError('unreadable', `${name} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ImportError('unreadable', `${name} is not GeoJSON: expected a FeatureCollection, a Feature or a geometry`);
  }
  const o = doc as Record<string, unknown>;
  checkCrs(o['crs'], name);
  let features: unknown[];
  if (o['type'] === 'FeatureCollection' && Array.isArray(o['features'])) features = o['features'];
  else if (o['type'] === 'Feature') features = [o];
  else if (typeof o['type'] === 'string' && GEOMETRY_TYPES.has(o['type'])) features = [{ type: 'Feature', properties: {}, geometry: o }];
  else throw new ImportError('unreadable', `${name} is not GeoJSON: expected a FeatureCollection, a Feature or a geometry`);
  return { format: 'geojson', features, furrowExport: isFurrowExport(o) };
}

/**
 * RFC 7946 GeoJSON is always WGS84 and has no `crs`; older files (and QGIS exports in another CRS) name theirs.
 * Any named CRS other than WGS84 longitude/latitude is refused: Furrow cannot reproject.
 */
function checkCrs(crs: unknown, name: string): void {
  if (typeof crs !== 'object' || crs === null) return;
  const props = (crs as Record<string, unknown>)['properties'];
  const crsName = typeof props === 'object' && props !== null ? (props as Record<string, unknown>)['name'] : undefined;
  if (typeof crsName !== 'string' || /CRS84$|EPSG:{1,2}4326$/i.test(crsName.trim())) return;
  // "urn:ogc:def:crs:EPSG::25830" is EPSG:25830, the name QGIS and ogr2ogr show.
  const epsg = /EPSG:{1,2}(\d+)$/i.exec(crsName.trim())?.[1];
  const which = epsg && crsName.trim() !== `EPSG:${epsg}` ? `EPSG:${epsg} (its "crs" member says ${crsName})` : crsName;
  throw new ImportError('projection', `${name} is in ${which}, not WGS84 longitude/latitude; Furrow cannot reproject: ${REPROJECT}`);
}
