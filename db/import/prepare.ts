// One job of an import: a slice of the file's features, converted, validated with the service's rules and
// turned into row columns ready to insert — or into problems. It runs on worker threads (worker.ts) and on
// the importing thread alike, so both give the same answer; nothing here touches the mirror.

import { validateParcel, type ParcelProblem, type ValidParcel } from '../../core/parcels/validate.ts';
import { featureLabel, toParcelInputs, type ImportProblem, type Origin, type ParcelInput } from './convert.ts';
import { canonicalCoordinates } from './raw-coords.ts';
import { validationStamp } from '../../core/parcels/client-ref.ts';

export interface JobOptions {
  farmName: string;
  /** The file is a Furrow export (see furrow-format.ts). */
  furrowExport: boolean;
  /** The account's parcel size limit. */
  maxHectares: number;
}

/** Flags of a parcel input: it becomes a row; it is one part of a split MultiPolygon; it is a Point parcel. */
export const VALID = 1;
export const SPLIT = 2;
export const POINT = 4;
/** Valid, but its metadata leaves no room for the sync engine's client reference: no validation stamp. */
export const UNSTAMPED = 32;

/** Plain data (strings, arrays, typed arrays), so it crosses from a worker thread as it is. */
export interface PreparedJob {
  /** Parcel inputs of the job's features, parts counted and broken MultiPolygons left out: what chunks count. */
  inputs: number;
  /** Per input: VALID, SPLIT, POINT. */
  flags: Uint8Array;
  /**
   * The text columns of each VALID input, in order — name, point JSON (empty for a polygon), geometry JSON,
   * metadata JSON — in one string, field k being text.slice(offsets[k], offsets[k + 1]). One string crosses
   * from a worker as one copy; 400 small ones per job cost the importing thread far more to receive and collect.
   */
  text: string;
  offsets: Uint32Array;
  /** hectares, minx, miny, maxx, maxy of each VALID input. */
  numbers: Float64Array;
  /** Every problem of the job's features (conversion, broken part, validation), in feature order. */
  problems: ImportProblem[];
  /**
   * Valid Point parcels whose z (a height other than 0) is not kept: a point parcel is the square of its hectares
   * on the ground, and the service keeps its point as [longitude, latitude]. Polygons keep their z.
   */
  pointZ: number;
}

/**
 * A job's bytes (the file from offset `base`) and where the file's Polygon features' coordinates lie (file
 * offsets, geojson-split.ts), when it was split.
 */
export interface RawText { bytes: Uint8Array; base: number; polygons: Float64Array }

/** Text fields per row in PreparedJob.text. */
export const FIELDS = 4;

/** features[0] is the file's feature number `firstIndex`. */
export function prepareFeatures(features: readonly unknown[], firstIndex: number, opts: JobOptions, raw?: RawText): PreparedJob {
  const { inputs, origins, problems } = toParcelInputs(features, { farmName: opts.farmName, furrowExport: opts.furrowExport }, firstIndex);
  const limit = { maxHectares: opts.maxHectares };
  const flags = new Uint8Array(inputs.length);
  const valid: ValidParcel[] = [];
  const validAt: number[] = []; // valid[k] is input validAt[k]
  // The file's own text of each valid parcel's geometry, when it can be reused as it stands (raw-coords.ts).
  const rawGeometry: (string | null)[] = [];
  let kept = 0;
  let pointZ = 0;
  for (let i = 0; i < inputs.length;) {
    const n = origins[i]!.parts;
    const results = validateFeature(inputs, i, n, limit);
    const found = results.flatMap((r) => r.problems);
    if (n > 1 && found.length > 0) {
      // A MultiPolygon is one field in several pieces: with one piece invalid the whole feature is, and it is
      // left out entirely (not counted as inputs), never imported in pieces.
      for (const p of found) problems.push(fromParcelProblem(p, origins[i + p.index]!));
    } else {
      for (let k = 0; k < n; k++) {
        const r = results[k]!;
        if (r.parcel && r.problems.length === 0) {
          flags[kept] = VALID | (n > 1 ? SPLIT : 0) | (r.parcel.point ? POINT : 0);
          if (r.parcel.point && heightOf(inputs[i + k]!) !== 0) pointZ++;
          valid.push(r.parcel);
          validAt.push(kept);
          rawGeometry.push(raw && n === 1 ? polygonText(raw, origins[i]!.index) : null);
        } else {
          for (const p of r.problems) problems.push(fromParcelProblem(p, origins[i + k]!));
        }
        kept++;
      }
    }
    i += n;
  }
  problems.sort((a, b) => a.index - b.index);
  const numbers = new Float64Array(valid.length * 5);
  const fields: string[] = [];
  const offsets = new Uint32Array(valid.length * FIELDS + 1);
  let at = 0;
  valid.forEach((p, k) => {
    const i = validAt[k]!;
    if (validationStamp(p.metadata) === null) flags[i] = flags[i]! | UNSTAMPED;
    numbers[k * 5] = p.hectares;
    for (let c = 0; c < 4; c++) numbers[k * 5 + 1 + c] = p.bbox[c]!;
    const coordinates = rawGeometry[k];
    const geometry = coordinates ? `{"type":"Polygon","coordinates":${coordinates}}` : JSON.stringify(p.geometry);
    fields.push(p.name, p.point ? JSON.stringify(p.point) : '', geometry, JSON.stringify(p.metadata));
    for (let f = fields.length - FIELDS; f < fields.length; f++) offsets[f + 1] = at += fields[f]!.length;
  });
  return { inputs: kept, flags: flags.slice(0, kept), text: fields.join(''), offsets, numbers, problems, pointZ };
}

/** A point input's third coordinate (0 without one). */
function heightOf(input: ParcelInput): number {
  const z = (input.geom.geometry.coordinates as unknown[])[2];
  return typeof z === 'number' ? z : 0;
}

/** Feature f's coordinates as JSON.stringify would write them, from the file, when it is a Polygon and they can be. */
function polygonText(raw: RawText, f: number): string | null {
  const start = raw.polygons[2 * f]!;
  return start < 0 ? null : canonicalCoordinates(raw.bytes, start - raw.base, raw.polygons[2 * f + 1]! - raw.base);
}

/** The n inputs of one feature, each validated; indexes within the feature, so "Parcel k" is its part. */
function validateFeature(inputs: ParcelInput[], first: number, n: number, limit: { maxHectares: number }) {
  const out: { parcel: ValidParcel | null; problems: ParcelProblem[] }[] = [];
  for (let k = 0; k < n; k++) out.push(validateParcel(inputs[first + k], k, limit));
  return out;
}

/**
 * A core problem ("Parcel 3: …") as a problem of the file's feature, named by its index and name. The core words
 * a point's missing area after the API's field; a file has a `hectares` property instead.
 */
export function fromParcelProblem(p: ParcelProblem, origin: Origin): ImportProblem {
  const split = origin.parts > 1;
  let detail = p.message.replace(/^Parcel \d+: /, '');
  if (p.code === 'hectares_missing') {
    const got = /\(got (.*)\)$/.exec(detail)?.[1] ?? 'nothing';
    detail = `a point becomes a parcel only with its area: give it a "hectares" property, a number above 0 (it has ${got === 'nothing' ? 'none' : got})`;
  }
  const label = featureLabel(origin.index, origin.name);
  const where = split ? `${label} (part ${origin.part} of ${origin.parts})` : label;
  return { index: origin.index, ...(split ? { part: origin.part } : {}), code: p.code, message: `${where}: ${detail}` };
}
