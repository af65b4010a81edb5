// Reads an import file into GeoJSON features, whatever its format.

import { isUtf8 } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ImportError, REPROJECT } from './errors.ts';
import { isFurrowExport } from './furrow-format.ts';
import { splitFeatureFile, type SplitCollection, type TailSplit } from './geojson-split.ts';
import { fileRef, type FileRef } from './file-ref.ts';

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
 * A GeoJSON FeatureCollection left unparsed: the file (read again, job by job, by whichever thread prepares the
 * job) and where each feature lies in it (geojson-split.ts). The import parses it slice by slice.
 */
export interface SplitSource {
  format: 'geojson';
  file: FileRef;
  split: SplitCollection;
  furrowExport: boolean;
  notes?: string[];
}

/** Bytes read to tell the format. */
const HEAD_BYTES = 1024;

/**
 * The file's features, parsed; or with `split`, a FeatureCollection may come back unparsed (SplitSource): it is
 * split through a moving window, so the file is never held whole. A file the split does not take (another
 * format or shape, anything odd, a refused crs) is read and parsed whole as always, so its errors are exactly
 * the same either way.
 */
export async function readImportSource(file: string, split: boolean, splitTail?: (file: FileRef, start: number) => TailSplit | null): Promise<SourceFeatures | SplitSource> {
  const name = basename(file);
  const ext = extname(file).toLowerCase();
  if (split) {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (e) {
      throw new ImportError('unreadable', `${name} cannot be read: ${(e as Error).message}`);
    }
    try {
      const st = fstatSync(fd);
      const head = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
      readSync(fd, head, 0, head.length, 0);
      if (st.isFile() && detect(head, ext) === 'geojson') {
        const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
        const ref = fileRef(file, st);
        // A large file's second part is split by a worker thread meanwhile, when there is one (geojson-split.ts).
        const parts = splitFeatureFile(fd, st.size, bom, undefined, splitTail && { from: (start) => splitTail(ref, start) });
        if (parts && crsAccepted(parts.members['crs'])) {
          const notes = parts.utf8 ? [] : [notUtf8(name)];
          return { format: 'geojson', file: ref, split: parts, furrowExport: isFurrowExport(parts.members), notes };
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (e) {
    throw new ImportError('unreadable', `${name} cannot be read: ${(e as Error).message}`);
  }
  const format = detect(buffer.subarray(0, HEAD_BYTES), ext);
  // The KML and Shapefile readers, and the XML, zip and Shapefile packages they use, load only for those formats:
  // loading them took a GeoJSON import 50–100 ms before it could start.
  if (format === 'zip') return { format, ...(await (await import('./shapefile.ts')).readZip(buffer, name)), furrowExport: false };
  // GeoJSON and KML are read as UTF-8: bytes that are not become U+FFFD, which the user is told, not left to find.
  const notes = isUtf8(buffer) ? [] : [notUtf8(name)];
  if (format === 'kml') return { format, features: (await import('./kml.ts')).readKml(buffer, name), furrowExport: false, notes };
  if (format === 'geojson') {
    const source = readGeoJson(buffer.toString('utf8').replace(/^\uFEFF/, ''), name);
    return { ...source, notes: [...notes, ...(source.notes ?? [])] };
  }
  throw new ImportError('unsupported_format', `${name}: unknown format; import GeoJSON (.geojson, .json), KML (.kml, .kmz) or a zipped Shapefile (.zip)`);
}

const notUtf8 = (name: string) =>
  `${name} is not valid UTF-8: the bytes that are not were read as U+FFFD (\uFFFD); save the file as UTF-8 to keep those characters`;

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
