// A vector overlay turned, once, into the GeoJSON the page draws: GeoJSON, KML/KMZ and zipped Shapefiles read by the
// import's own readers (db/import/read.ts: the same formats, encodings, zip guards, and the same reprojection to WGS84
// from a file's EPSG coordinate system, with the same grids, as an import), a GeoPackage by db/geopackage.ts (WGS84). Every feature with a shape is kept as it is (lines and points too: roads, drains,
// wells), in WGS84; ones without are left out and counted. Written feature by feature to `dest`. The host runs it on
// a worker thread (backend/layer-vector-thread.ts): a large overlay takes seconds of CPU.
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { REPROJECT } from '../db/import/errors.ts';
import { VECTOR_OVERLAY_MAX_BYTES } from '../core/layers/layer-files.ts';
import { LayerFileRefused } from './layer-sniff.ts';
import type { LayerFileInfo } from '../core/api-layer-files.ts';

const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']);

export interface Converted {
  bbox: [number, number, number, number] | null;
  features: number;
  notes: string[];
  /** What it was read from, for the layer's legend. */
  origin: NonNullable<LayerFileInfo['origin']>;
}

/** Grows `box` by every position of `coords` (nested arrays of [x, y, …]); false when one is not a number pair. */
function extend(box: number[], coords: unknown, depth = 0): boolean {
  if (!Array.isArray(coords) || depth > 8) return false;
  if (typeof coords[0] === 'number') {
    const [x, y] = coords as number[];
    if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
    box[0] = Math.min(box[0]!, x!); box[1] = Math.min(box[1]!, y!); box[2] = Math.max(box[2]!, x!); box[3] = Math.max(box[3]!, y!);
    return true;
  }
  let any = false;
  for (const c of coords) any = extend(box, c, depth + 1) || any;
  return any;
}

/** Whether a geometry has a shape to draw, growing `box` by it. */
function drawable(g: unknown, box: number[], depth = 0): boolean {
  if (typeof g !== 'object' || g === null || depth > 8) return false;
  const o = g as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (typeof o.type !== 'string' || !GEOMETRY_TYPES.has(o.type)) return false;
  if (o.type === 'GeometryCollection') return Array.isArray(o.geometries) && o.geometries.map((x) => drawable(x, box, depth + 1)).some(Boolean);
  return extend(box, o.coordinates);
}

/**
 * Writes the features of the overlay at `file` (`name`: the user's name for it; `kind`: how to read it) to `dest`.
 * `gridDirs`: where the NTv2 grids a datum shift needs are looked for (backend/grids.ts).
 */
export async function convertVector(file: string, name: string, kind: 'import' | 'gpkg', dest: string, gridDirs?: readonly string[]): Promise<Converted> {
  const size = statSync(file).size;
  if (size > VECTOR_OVERLAY_MAX_BYTES) {
    throw new LayerFileRefused(`${name} is ${Math.round(size / 1048576)} MB: a vector overlay may be ${VECTOR_OVERLAY_MAX_BYTES / 1048576} MB at most (the map holds every feature). Clip it to your area first (ogr2ogr -clipsrc).`);
  }
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  let features = 0;
  let dropped = 0;
  const notes: string[] = [];
  let origin: Converted['origin'] = 'GeoPackage';
  const fd = openSync(dest, 'wx', 0o600);
  try {
    let pending = '{"type":"FeatureCollection","features":[\n';
    const flush = () => { writeSync(fd, pending); pending = ''; };
    const add = (f: unknown, layer?: string) => {
      const o = (typeof f === 'object' && f !== null ? f : {}) as { geometry?: unknown; properties?: unknown };
      if (!drawable(o.geometry, box)) {
        dropped++;
        return;
      }
      const properties = typeof o.properties === 'object' && o.properties !== null ? { ...(o.properties as object), ...(layer ? { layer } : {}) } : layer ? { layer } : {};
      pending += `${features ? ',\n' : ''}${JSON.stringify({ type: 'Feature', properties, geometry: o.geometry })}`;
      features++;
      if (pending.length > 1 << 20) flush();
    };
    if (kind === 'gpkg') {
      const { readGeoPackage, GeoPackageError } = await import('../db/geopackage.ts');
      // Tables in another CRS than WGS84: their features gathered by CRS, then reprojected as an import's are.
      const other = new Map<number, { f: unknown; layer: string | undefined }[]>();
      try {
        const tables = readGeoPackage(file, name, (f, table, of, epsg) => {
          const layer = of > 1 ? table : undefined;
          if (epsg === null) add(f, layer);
          else {
            const list = other.get(epsg) ?? [];
            list.push({ f, layer });
            other.set(epsg, list);
          }
        });
        if (tables.length > 1) notes.push(`${name} holds ${tables.length} layers (${tables.join(', ')}): shown together, each feature's layer in its "layer" property.`);
      } catch (err) {
        throw err instanceof GeoPackageError ? new LayerFileRefused(err.message) : err;
      }
      for (const [code, list] of other) {
        const { epsgDefinition } = await import('../db/import/epsg.ts');
        const { reprojectFeatures } = await import('../db/import/crs-source.ts');
        const { ImportError } = await import('../db/import/errors.ts');
        try {
          const def = epsgDefinition(code).def;
          if (!def) throw new LayerFileRefused(`${name} is in EPSG:${code}, which is not in the EPSG definitions Furrow has: ${REPROJECT}`);
          const features = list.map((x) => x.f);
          notes.push(...reprojectFeatures(features, def, name, gridDirs ?? []).notes, `Reprojected from EPSG:${code} (${def.name}) to WGS84.`);
          features.forEach((f, i) => add(f, list[i]!.layer));
        } catch (err) {
          if (err instanceof ImportError) throw new LayerFileRefused(err.message);
          if (err instanceof Error && err.name === 'CrsError') throw new LayerFileRefused(`${name}: ${err.message}`);
          throw err;
        }
      }
    } else {
      const { readImportSource } = await import('../db/import/read.ts');
      const { ImportError } = await import('../db/import/errors.ts');
      try {
        const source = await readImportSource(file, false, undefined, { gridDirs });
        if (!('features' in source)) throw new Error('a split source was not asked for');
        for (const f of source.features) add(f);
        origin = source.format === 'geojson' ? 'GeoJSON' : source.format === 'kml' ? 'KML' : source.zipped === 'kmz' ? 'KMZ' : 'Shapefile';
        notes.push(...(source.notes ?? []));
        if (source.crs.reprojected) notes.push(`Reprojected from ${source.crs.code === null ? source.crs.name : `EPSG:${source.crs.code} (${source.crs.name})`} to WGS84.`);
      } catch (err) {
        // The readers name the file they read (the host's copy): the user knows it by its own name.
        if (err instanceof ImportError) throw new LayerFileRefused(err.message.split(basename(file)).join(name));
        throw err;
      }
    }
    pending += '\n]}\n';
    flush();
  } finally {
    closeSync(fd);
  }
  if (features === 0) throw new LayerFileRefused(`${name} has no feature with a shape to draw.`);
  if (dropped) notes.push(`${dropped.toLocaleString('en-US')} feature(s) without a shape were left out.`);
  if (!(box[0]! >= -180 && box[2]! <= 180 && box[1]! >= -90 && box[3]! <= 90)) {
    throw new LayerFileRefused(`${name}'s coordinates (${box.map((v) => Math.round(v)).join(', ')}) are not longitude/latitude: ${REPROJECT}`);
  }
  return { bbox: box as [number, number, number, number], features, notes: notes.map((n) => n.split(basename(file)).join(name)), origin };
}

/** The box around features' shapes (a kept overlay whose info was lost), or null. */
export function bboxOf(features: readonly { geometry?: unknown }[]): [number, number, number, number] | null {
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of features) drawable(f.geometry, box);
  return box.every(Number.isFinite) ? (box as [number, number, number, number]) : null;
}
