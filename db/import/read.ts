// Reads an import file into GeoJSON features, whatever its format.

import { isUtf8 } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ImportError } from './errors.ts';
import { isFurrowExport } from './furrow-format.ts';
import { splitFeatureFile, type SplitCollection, type TailSplit } from './geojson-split.ts';
import { fileRef, type FileRef } from './file-ref.ts';
import type { CrsDefinition } from '../../core/geo/crs.ts';
import type { FileCrs } from './crs-source.ts';
import { projGridDirs } from './grid-dirs.ts';

export type ImportFormat = 'geojson' | 'kml' | 'zip';

export interface SourceFeatures {
  format: ImportFormat;
  features: unknown[];
  /** A GeoJSON export of Furrow's own (see furrow-format.ts). */
  furrowExport: boolean;
  /** What reading the file did that the user should know about (ImportReport.notes). */
  notes?: string[];
  /** The coordinate system the file was in; its features are in WGS84 now. */
  crs: FileCrs;
  /** A zip's content: a shapefile, or a KMZ's KML. */
  zipped?: 'shapefile' | 'kmz';
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
  /** Always WGS84: a file in another CRS is parsed whole and reprojected. */
  crs: FileCrs;
}

/** Where NTv2 grid files are looked for (grid-dirs.ts projGridDirs by default). */
export interface ReadOptions { gridDirs?: readonly string[] }

/** What a WGS84 file says of its CRS (crs-source.ts WGS84_FILE, without loading that module). */
const WGS84_FILE: FileCrs = { code: 4326, name: 'WGS 84', reprojected: false, shift: 'none', grid: null, accuracy: null };

/** Bytes read to tell the format. */
const HEAD_BYTES = 1024;

/**
 * The file's features, parsed; or with `split`, a FeatureCollection may come back unparsed (SplitSource): it is
 * split through a moving window, so the file is never held whole. A file the split does not take (another
 * format or shape, anything odd, a refused crs) is read and parsed whole as always, so its errors are exactly
 * the same either way.
 */
export async function readImportSource(file: string, split: boolean, splitTail?: (file: FileRef, start: number) => TailSplit | null,
  opts: ReadOptions = {}): Promise<SourceFeatures | SplitSource> {
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
        // A FeatureCollection in another CRS is parsed whole below, and reprojected: only WGS84 is split.
        if (parts && wgs84Member(parts.members['crs'])) {
          const notes = parts.utf8 ? [] : [notUtf8(name)];
          return { format: 'geojson', file: ref, split: parts, furrowExport: isFurrowExport(parts.members), notes, crs: WGS84_FILE };
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
  if (format === 'zip') {
    const { features, notes, crs, kmz } = await (await import('./shapefile.ts')).readZip(buffer, name);
    return placed({ format, features, furrowExport: false, notes, crs: WGS84_FILE, zipped: kmz ? 'kmz' : 'shapefile' }, crs, name, opts);
  }
  // GeoJSON and KML are read as UTF-8: bytes that are not become U+FFFD, which the user is told, not left to find.
  const notes = isUtf8(buffer) ? [] : [notUtf8(name)];
  // KML is WGS84 longitude/latitude, always (OGC KML 2.2).
  if (format === 'kml') return { format, features: (await import('./kml.ts')).readKml(buffer, name), furrowExport: false, notes, crs: WGS84_FILE };
  if (format === 'geojson') {
    const { source, crs } = readGeoJson(buffer.toString('utf8').replace(/^\uFEFF/, ''), name);
    const def = wgs84Member(crs) ? null : (await import('./crs-source.ts')).crsOfGeoJson(crs, name);
    return placed({ ...source, notes: [...notes, ...(source.notes ?? [])] }, def, name, opts);
  }
  throw new ImportError('unsupported_format', `${name}: unknown format; import GeoJSON (.geojson, .json), KML (.kml, .kmz) or a zipped Shapefile (.zip)`);
}

const notUtf8 = (name: string) =>
  `${name} is not valid UTF-8: the bytes that are not were read as U+FFFD (\uFFFD); save the file as UTF-8 to keep those characters`;

/**
 * The source with its features reprojected from `def` to WGS84 (crs-source.ts, loaded only then), or as it is when
 * it is WGS84 (null).
 */
async function placed(source: SourceFeatures, def: CrsDefinition | null, name: string, opts: ReadOptions): Promise<SourceFeatures> {
  if (def === null) return source;
  const { reprojectFeatures } = await import('./crs-source.ts');
  const { crs, notes } = reprojectFeatures(source.features, def, name, opts.gridDirs ?? projGridDirs());
  return { ...source, crs, notes: [...(source.notes ?? []), ...notes] };
}

/**
 * A GeoJSON "crs" member that says WGS84 longitude/latitude: none (RFC 7946 GeoJSON is always WGS84 and has none),
 * OGC's CRS84, EPSG:4326 (ogr2ogr's and QGIS's files keep longitude first, whatever EPSG's axis order), or one without
 * a name (a "link" crs of the 2008 format, which nothing writes any more: ignored, as before).
 */
function wgs84Member(crs: unknown): boolean {
  if (typeof crs !== 'object' || crs === null) return true;
  const props = (crs as Record<string, unknown>)['properties'];
  const name = typeof props === 'object' && props !== null ? (props as Record<string, unknown>)['name'] : undefined;
  return typeof name !== 'string' || /CRS:?84$|EPSG:{1,2}4326$/i.test(name.trim());
}

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

function readGeoJson(text: string, name: string): { source: SourceFeatures; crs: unknown } {
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
  let features: unknown[];
  if (o['type'] === 'FeatureCollection' && Array.isArray(o['features'])) features = o['features'];
  else if (o['type'] === 'Feature') features = [o];
  else if (typeof o['type'] === 'string' && GEOMETRY_TYPES.has(o['type'])) features = [{ type: 'Feature', properties: {}, geometry: o }];
  else throw new ImportError('unreadable', `${name} is not GeoJSON: expected a FeatureCollection, a Feature or a geometry`);
  return { source: { format: 'geojson', features, furrowExport: isFurrowExport(o), crs: WGS84_FILE }, crs: o['crs'] };
}
