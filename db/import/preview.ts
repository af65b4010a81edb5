// What an import of a file would do, feature by feature, without writing anything: the app's preview before an
// import (backend/imports.ts). Each feature goes through exactly what the import puts it through (prepare.ts: the
// conversion of convert.ts, then core/parcels/validate.ts with the account's limit), so a feature the preview calls
// valid is one the import takes, and the problems are the import's own words.

import { basename } from 'node:path';
import { ImportError } from './errors.ts';
import { featureLabel, featureName, type ImportProblem } from './convert.ts';
import { prepareFeatures, VALID } from './prepare.ts';
import { projectionError } from './index.ts';
import { readImportSource, type ImportFormat } from './read.ts';
import { rowShape, type FindSame, type SameAs } from './duplicates.ts';
import type { FileCrs } from './crs-source.ts';

export interface PreviewOptions {
  /** The account's parcel size limit in hectares. */
  maxHectares: number;
  /** Features listed one by one (all are counted); past it the invalid ones are listed first. */
  maxListed: number;
  /** Positions of invalid features' shapes sent for the map, in all; past it a shape is left out (null). */
  maxPositions: number;
  /** The account's parcels a shape matches (duplicates.ts existingShapes); without it nothing is marked. */
  sameAs?: FindSame;
  onProgress?: (done: number, total: number) => void;
  /** Where NTv2 grid files are looked for (grid-dirs.ts projGridDirs by default). */
  gridDirs?: readonly string[];
}

export interface PreviewFeature {
  /** 0-based, in the file's order (features, placemarks, records), as the import's problems number them. */
  index: number;
  /** The file's name for it (null: the import names it after the farm and its number). */
  name: string | null;
  /** The file's geometry type (null: none). */
  geometryType: string | null;
  /** Parcels it becomes (a MultiPolygon's parts), 0 when it cannot be imported. */
  parcels: number;
  /** Its geodesic hectares (its parts' together) when valid. */
  hectares: number | null;
  /** Why it cannot be imported, without the "Feature 3 'name':" every import problem starts with; none when valid. */
  problems: { code: string; message: string }[];
  /** An invalid feature's shape (GeoJSON, WGS84) when it can be drawn, for the map; null otherwise. */
  geometry: { type: string; coordinates: unknown } | null;
  /** Its parcels that are the same shape as a parcel the account has already (core/geo/same-shape.ts). */
  duplicates: number;
  /** The first parcel already there that one of them matches. */
  sameAs: SameAs | null;
}

export interface FilePreview {
  format: ImportFormat;
  features: PreviewFeature[];
  total: number; valid: number; invalid: number;
  /** Parcels and hectares the valid features become. */
  parcels: number; hectares: number;
  /** Of those, the parcels already in the account, and the valid features all of whose parcels are. */
  duplicates: number; duplicateFeatures: number;
  /** Some features are counted but not listed (maxListed). */
  truncated: boolean;
  /** The box of the valid parcels and the invalid shapes listed: where the map shows the file. */
  bbox: [number, number, number, number] | null;
  notes: string[];
  /** The coordinate system the file is in; everything above is in WGS84, reprojected from it. */
  crs: FileCrs;
}

/** Features prepared per progress report. */
const STEP = 100;

export async function previewFile(file: string, opts: PreviewOptions): Promise<FilePreview> {
  const name = basename(file);
  // Parsed whole (readImportSource without the split): a preview's file is small (the app's cap), and each
  // feature's object is needed for its name and type anyway.
  const source = await readImportSource(file, false, undefined, { gridDirs: opts.gridDirs });
  if (!('features' in source)) throw new Error('a preview reads its file whole');
  const features = source.features;
  if (features.length === 0) throw new ImportError('empty', `${name} has no features to import`);
  const jobOpts = { farmName: '', furrowExport: source.furrowExport, maxHectares: opts.maxHectares };
  const all: PreviewFeature[] = [];
  const problems: ImportProblem[] = [];
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  let valid = 0;
  let parcels = 0;
  let hectares = 0;
  let duplicates = 0;
  let duplicateFeatures = 0;
  opts.onProgress?.(0, features.length);
  for (let i = 0; i < features.length; i++) {
    const f = features[i];
    // One feature at a time: its problems and its rows are then its own, whatever parts it splits into.
    const r = prepareFeatures([f], i, jobOpts);
    const own = featureName(f);
    const label = featureLabel(i, own);
    let count = 0;
    let area = 0;
    let same = 0;
    let sameAs: SameAs | null = null;
    for (let k = 0, row = 0; k < r.inputs; k++) {
      if (!(r.flags[k]! & VALID)) continue;
      area += r.numbers[row * 5]!;
      if (opts.sameAs && r.problems.length === 0) {
        const { box, shape } = rowShape(r, row);
        const found = opts.sameAs(box, shape);
        if (found) {
          same++;
          sameAs ??= found;
        }
      }
      widen(box, r.numbers[row * 5 + 1]!, r.numbers[row * 5 + 2]!, r.numbers[row * 5 + 3]!, r.numbers[row * 5 + 4]!);
      row++;
      count++;
    }
    const ok = r.problems.length === 0 && count > 0;
    for (const p of r.problems) problems.push(p);
    if (ok) {
      valid++;
      parcels += count;
      hectares += area;
      duplicates += same;
      if (same === count) duplicateFeatures++;
    }
    const geometry = isObject(f) && isObject(f['geometry']) ? f['geometry'] : null;
    all.push({
      index: i, name: own ?? null, geometryType: typeof geometry?.['type'] === 'string' ? geometry['type'] : null,
      parcels: ok ? count : 0, hectares: ok ? area : null,
      problems: r.problems.map((p) => ({ code: p.code, message: unlabel(p.message, label) })),
      geometry: null, duplicates: ok ? same : 0, sameAs: ok ? sameAs : null,
    });
    if ((i + 1) % STEP === 0) opts.onProgress?.(i + 1, features.length);
  }
  opts.onProgress?.(features.length, features.length);
  const projected = projectionError(name, valid, problems, source.format);
  if (projected) throw projected;
  const listed = list(all, opts.maxListed);
  let positions = 0;
  for (const f of listed) {
    if (f.problems.length === 0) continue;
    const g = drawable(features[f.index]);
    if (!g || positions + g.positions > opts.maxPositions) continue;
    positions += g.positions;
    f.geometry = g.geometry;
    widen(box, g.box[0], g.box[1], g.box[2], g.box[3]);
  }
  return {
    format: source.format, features: listed, total: features.length, valid, invalid: features.length - valid, parcels, hectares, duplicates, duplicateFeatures,
    truncated: listed.length < all.length, bbox: box[0] <= box[2] ? box : null, notes: source.notes ?? [], crs: source.crs,
  };
}

/** "Feature 3 'Pozo' (part 2 of 3): ring 0 …" → "part 2 of 3: ring 0 …": the preview's row already names the feature. */
function unlabel(message: string, label: string): string {
  if (!message.startsWith(label)) return message;
  const rest = message.slice(label.length);
  const part = /^ \((part \d+ of \d+)\): /.exec(rest);
  return part ? `${part[1]}: ${rest.slice(part[0].length)}` : rest.replace(/^: /, '');
}

/** At most `max` features in the file's order: every invalid one first (they need the user), then the valid ones. */
function list(all: PreviewFeature[], max: number): PreviewFeature[] {
  if (all.length <= max) return all;
  const keep = new Set(all.filter((f) => f.problems.length > 0).slice(0, max).map((f) => f.index));
  for (const f of all) {
    if (keep.size >= max) break;
    keep.add(f.index);
  }
  return all.filter((f) => keep.has(f.index));
}

const DRAWN = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon']);
const DEPTH: Record<string, number> = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 };

/**
 * A feature's geometry as the map can draw it: a known type whose every position is a finite longitude/latitude
 * (a shape in metres, or with a hole in its numbers, would be drawn somewhere meaningless, or break the map).
 */
function drawable(feature: unknown): { geometry: { type: string; coordinates: unknown }; positions: number; box: [number, number, number, number] } | null {
  const g = isObject(feature) && isObject(feature['geometry']) ? feature['geometry'] : null;
  const type = g?.['type'];
  if (!g || typeof type !== 'string' || !DRAWN.has(type)) return null;
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  let positions = 0;
  const walk = (v: unknown, depth: number): boolean => {
    if (!Array.isArray(v)) return false;
    if (depth === 0) {
      const [lon, lat] = v as unknown[];
      if (typeof lon !== 'number' || typeof lat !== 'number' || !(Math.abs(lon) <= 180) || !(Math.abs(lat) <= 90)) return false;
      positions++;
      widen(box, lon, lat, lon, lat);
      return true;
    }
    return v.length > 0 && v.every((c) => walk(c, depth - 1));
  };
  if (!walk(g['coordinates'], DEPTH[type]!)) return null;
  // Only the two numbers the map draws: a height or extra values are no use to it.
  const flat = (v: unknown, depth: number): unknown => (depth === 0 ? (v as number[]).slice(0, 2) : (v as unknown[]).map((c) => flat(c, depth - 1)));
  return { geometry: { type, coordinates: flat(g['coordinates'], DEPTH[type]!) }, positions, box };
}

function widen(box: [number, number, number, number], minx: number, miny: number, maxx: number, maxy: number): void {
  if (minx < box[0]) box[0] = minx;
  if (miny < box[1]) box[1] = miny;
  if (maxx > box[2]) box[2] = maxx;
  if (maxy > box[3]) box[3] = maxy;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
