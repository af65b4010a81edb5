// One job of an import: a slice of the file's features, converted, validated with the service's rules and
// turned into row columns ready to insert — or into problems. It runs on worker threads (worker.ts) and on
// the importing thread alike, so both give the same answer; nothing here touches the mirror.

import { validateParcel, type ParcelProblem, type ValidParcel } from '../../core/parcels/validate.ts';
import { featureLabel, toParcelInputs, type ImportProblem, type Origin, type ParcelInput } from './convert.ts';
import { isCanonicalCoordinates } from './raw-coords.ts';
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
   * metadata JSON — as UTF-8, field k being bytes[offsets[k], offsets[k + 1]). Bytes, not strings: 400 small
   * strings per job cost the importing thread far more to receive and collect than one; and one string (85 KB a
   * job) was still copied into the importing thread's heap, copied again by each garbage collection while it waited
   * to be written, and converted to UTF-8 field by field to be bound. The bytes are transferred, not copied, stay
   * outside the garbage-collected heap, and are bound to SQLite as they are (db/bulk.ts).
   */
  bytes: Uint8Array;
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
  // Where the file has each valid parcel's coordinates (offsets in raw.bytes), when its text can be reused as it
  // stands (raw-coords.ts); -1 otherwise.
  const rawGeometry: number[] = [];
  let kept = 0;
  let pointZ = 0;
  for (let i = 0; i < inputs.length;) {
    const n = origins[i]!.parts;
    const results = validateFeature(inputs, i, n, limit);
    // Only a MultiPolygon's parts are gathered (an array per feature otherwise, for nothing).
    const found = n > 1 ? results.flatMap((r) => r.problems) : [];
    if (found.length > 0) {
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
          if (raw && n === 1) polygonText(raw, origins[i]!.index, rawGeometry);
          else rawGeometry.push(-1, -1);
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
  const out = new Utf8Writer(raw ? raw.bytes.length : 4096);
  const offsets = new Uint32Array(valid.length * FIELDS + 1);
  valid.forEach((p, k) => {
    const i = validAt[k]!;
    if (validationStamp(p.metadata) === null) flags[i] = flags[i]! | UNSTAMPED;
    numbers[k * 5] = p.hectares;
    for (let c = 0; c < 4; c++) numbers[k * 5 + 1 + c] = p.bbox[c]!;
    const f = k * FIELDS;
    offsets[f + 1] = out.string(p.name);
    offsets[f + 2] = p.point ? out.string(JSON.stringify(p.point)) : out.at;
    const start = rawGeometry[2 * k]!;
    offsets[f + 3] = start >= 0 ? out.polygon(raw!.bytes, start, rawGeometry[2 * k + 1]!) : out.string(JSON.stringify(p.geometry));
    offsets[f + 4] = out.string(JSON.stringify(p.metadata));
  });
  return { inputs: kept, flags: flags.slice(0, kept), bytes: out.bytes(), offsets, numbers, problems, pointZ };
}

const POLYGON_HEAD = Buffer.from('{"type":"Polygon","coordinates":', 'latin1');
const CLOSE_BRACE = 0x7d;

/** UTF-8 written one field after another into a buffer of its own (transferable: never one of Node's pooled ones). */
class Utf8Writer {
  private buf: Buffer;
  at = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(size, 1024));
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  /** Writes s; returns where it ends. */
  string(s: string): number {
    this.room(s.length * 3);
    this.at += this.buf.write(s, this.at, 'utf8');
    return this.at;
  }

  /** Writes a Polygon geometry with the file's coordinates text b[start, end) (ASCII: isCanonicalCoordinates); returns where it ends. */
  polygon(b: Uint8Array, start: number, end: number): number {
    this.room(POLYGON_HEAD.length + (end - start) + 1);
    POLYGON_HEAD.copy(this.buf, this.at);
    this.at += POLYGON_HEAD.length;
    this.buf.set(b.subarray(start, end), this.at);
    this.at += end - start;
    this.buf[this.at++] = CLOSE_BRACE;
    return this.at;
  }

  /** What was written, as a plain Uint8Array (what a worker's result arrives as). */
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.at);
  }
}

/** A point input's third coordinate (0 without one). */
function heightOf(input: ParcelInput): number {
  const z = (input.geom.geometry.coordinates as unknown[])[2];
  return typeof z === 'number' ? z : 0;
}

/**
 * Pushes where raw.bytes has feature f's coordinates, when it is a Polygon and the file wrote them as JSON.stringify
 * would (so that text can be stored as it is); -1, -1 otherwise.
 */
function polygonText(raw: RawText, f: number, out: number[]): void {
  const start = raw.polygons[2 * f]! - raw.base;
  const end = raw.polygons[2 * f + 1]! - raw.base;
  if (raw.polygons[2 * f]! >= 0 && isCanonicalCoordinates(raw.bytes, start, end)) out.push(start, end);
  else out.push(-1, -1);
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
