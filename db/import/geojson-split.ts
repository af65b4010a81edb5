// Splits a GeoJSON FeatureCollection into its features by looking at the bytes, without parsing them, so that
// worker threads can parse and validate the features in slices while this thread writes the mirror. Parsing
// 100,000 features in one JSON.parse took most of a second on this thread, and kept every one of them alive
// (and the garbage collector busy) until the import ended.
//
// The split is only as strict as it needs to be: it finds where each feature starts and ends (strings and
// brackets), and checks the collection's own structure (members, colons, commas). Whether each feature is
// valid JSON is left to the JSON.parse of its slice. Anything unusual — another top-level shape, a duplicate
// `features`, a stray byte between features — returns null, and the caller parses the whole file as before,
// which also gives the exact error message of a broken file.
//
// It also counts, for each feature whose bytes make it plain, how many parcel inputs it becomes: the import
// must know the total before it writes its first chunk (progress, undo labels). Only the certain case is
// counted — a Feature whose geometry is a Polygon, a Point, or a MultiPolygon of one polygon gives exactly
// one input (see convertFeature) — everything else is left for the feature's conversion to tell.

/** inputs[i] of a feature whose count only its conversion and validation can tell. */
export const UNKNOWN = -1;

export interface SplitCollection {
  /** Byte range [starts[i], ends[i]) of feature i's JSON text. */
  starts: Float64Array;
  ends: Float64Array;
  /** Parcel inputs feature i gives: 1 when certain from its bytes, else UNKNOWN. */
  inputs: Int8Array;
  /**
   * For a feature that is certainly a Polygon Feature: the byte range of its geometry's coordinates, at
   * [2i, 2i + 1] (see raw-coords.ts); -1, -1 otherwise.
   */
  polygons: Float64Array;
  /** The collection's other members (type, crs, furrow…), parsed. */
  members: Record<string, unknown>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

// Byte classes for the scan loops: most bytes of a feature (coordinates) are none of these.
const OTHER = 0;
const STRING = 1;
const OPEN = 2;
const CLOSE = 3;
const WS = 4;
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = STRING;
CLASS[OPEN_BRACE] = OPEN;
CLASS[OPEN_BRACKET] = OPEN;
CLASS[CLOSE_BRACE] = CLOSE;
CLASS[CLOSE_BRACKET] = CLOSE;
for (const c of [0x20, 0x09, 0x0a, 0x0d]) CLASS[c] = WS;

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const KEY_FEATURES = ascii('"features"');
const KEY_TYPE = ascii('"type"');
const KEY_GEOMETRY = ascii('"geometry"');
const KEY_COORDINATES = ascii('"coordinates"');
const VALUE_FEATURE = ascii('"Feature"');
const VALUE_POLYGON = ascii('"Polygon"');
const VALUE_POINT = ascii('"Point"');
const VALUE_MULTIPOLYGON = ascii('"MultiPolygon"');

/** Splits the FeatureCollection in b[from..], or null when it is anything else (or broken). */
export function splitFeatureCollection(b: Uint8Array, from = 0): SplitCollection | null {
  const s = new Scanner(b);
  let i = s.ws(from);
  if (b[i] !== OPEN_BRACE) return null;
  const rest: string[] = [];
  let found = false;
  i = s.ws(i + 1);
  if (b[i] === CLOSE_BRACE) return null;
  for (;;) {
    if (b[i] !== QUOTE) return null;
    const keyStart = i;
    const keyEnd = s.string(i);
    if (keyEnd < 0) return null;
    i = s.ws(keyEnd);
    if (b[i] !== COLON) return null;
    i = s.ws(i + 1);
    if (s.is(keyStart, keyEnd, KEY_FEATURES)) {
      if (found || b[i] !== OPEN_BRACKET) return null;
      found = true;
      i = s.features(i);
    } else {
      const end = s.value(i);
      if (end < 0) return null;
      rest.push(s.text(keyStart, end));
      i = end;
    }
    if (i < 0) return null;
    i = s.ws(i);
    if (b[i] === COMMA) {
      i = s.ws(i + 1);
      continue;
    }
    if (b[i] !== CLOSE_BRACE) return null;
    break;
  }
  if (!found || s.ws(i + 1) !== b.length || s.count === 0) return null;
  let members: Record<string, unknown>;
  try {
    members = JSON.parse(`{${rest.join(',')}}`) as Record<string, unknown>;
  } catch {
    return null;
  }
  // A key spelt with escapes ("feat\u0075res") is `features` too: the whole parse sorts that out.
  if (Object.hasOwn(members, 'features') || members['type'] !== 'FeatureCollection') return null;
  return {
    starts: s.starts.subarray(0, s.count), ends: s.ends.subarray(0, s.count), inputs: s.inputs.subarray(0, s.count),
    polygons: s.polygons.subarray(0, 2 * s.count), members,
  };
}

class Scanner {
  starts = new Float64Array(1024);
  ends = new Float64Array(1024);
  inputs = new Int8Array(1024);
  polygons = new Float64Array(2048);
  count = 0;
  private readonly n: number;

  constructor(private readonly b: Uint8Array) {
    this.n = b.length;
  }

  ws(i: number): number {
    while (i < this.n && CLASS[this.b[i]!] === WS) i++;
    return i;
  }

  /** Just past the string starting at i (a quote), or -1. */
  string(i: number): number {
    const { b, n } = this;
    for (i++; i < n; i++) {
      const c = b[i];
      if (c === QUOTE) return i + 1;
      if (c === BACKSLASH) i++;
    }
    return -1;
  }

  /** Just past the value starting at i, or -1: strings and brackets are followed, primitives run to a delimiter. */
  value(i: number): number {
    const { b, n } = this;
    const k = CLASS[b[i]!];
    if (k === STRING) return this.string(i);
    if (k === OPEN) {
      let depth = 0;
      while (i < n) {
        const byte = b[i]!;
        // Digits, commas, dots and minus signs first: coordinates are most of a file.
        if (byte >= 0x2c && byte <= 0x39) {
          i++;
          continue;
        }
        const c = CLASS[byte];
        if (c === OTHER || c === WS) i++;
        else if (c === STRING) {
          i = this.string(i);
          if (i < 0) return -1;
        } else if (c === OPEN) {
          depth++;
          i++;
        } else {
          i++;
          if (--depth === 0) return i;
        }
      }
      return -1;
    }
    const start = i;
    while (i < n) {
      const c = b[i]!;
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || CLASS[c] === WS) break;
      i++;
    }
    return i > start ? i : -1;
  }

  is(start: number, end: number, what: Uint8Array): boolean {
    if (end - start !== what.length) return false;
    for (let k = 0; k < what.length; k++) if (this.b[start + k] !== what[k]) return false;
    return true;
  }

  text(start: number, end: number): string {
    return Buffer.from(this.b.buffer, this.b.byteOffset + start, end - start).toString('utf8');
  }

  /** The features array at i (its bracket): records each element; just past the array, or -1. */
  features(i: number): number {
    const b = this.b;
    i = this.ws(i + 1);
    if (b[i] === CLOSE_BRACKET) return i + 1;
    for (;;) {
      const start = i;
      let inputs = UNKNOWN;
      let end: number;
      this.lastPolygon[0] = this.lastPolygon[1] = -1;
      if (b[i] === OPEN_BRACE) {
        end = this.feature(i);
        inputs = this.lastInputs;
      } else {
        end = this.value(i);
      }
      if (end < 0) return -1;
      this.push(start, end, inputs, this.lastPolygon);
      i = this.ws(end);
      if (b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      return b[i] === CLOSE_BRACKET ? i + 1 : -1;
    }
  }

  private push(start: number, end: number, inputs: number, polygon: Float64Array): void {
    if (this.count === this.starts.length) {
      const grow = <T extends Float64Array | Int8Array>(a: T, make: (n: number) => T): T => {
        const next = make(a.length * 2);
        next.set(a);
        return next;
      };
      this.starts = grow(this.starts, (n) => new Float64Array(n));
      this.ends = grow(this.ends, (n) => new Float64Array(n));
      this.inputs = grow(this.inputs, (n) => new Int8Array(n));
      this.polygons = grow(this.polygons, (n) => new Float64Array(n));
    }
    this.polygons.set(polygon, 2 * this.count);
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.inputs[this.count] = inputs;
    this.count++;
  }

  /** Set by feature(): its parcel inputs, 1 or UNKNOWN; and its polygon's coordinates, or -1, -1. */
  lastInputs = UNKNOWN;
  readonly lastPolygon = new Float64Array(2);
  /** Set by geometry(). */
  private geometryInputs = UNKNOWN;
  private readonly geometryPolygon = new Float64Array(2);

  /**
   * The members of an object at i, handing each key's range and the value's start to `member`, which returns
   * the value's end. Just past the object, or -1. A key with an escape is reported through `escaped`.
   */
  private members(i: number, member: (keyStart: number, keyEnd: number, value: number) => number): number {
    const b = this.b;
    i = this.ws(i + 1);
    if (b[i] === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (b[i] !== QUOTE) return -1;
      const keyStart = i;
      const keyEnd = this.string(i);
      if (keyEnd < 0) return -1;
      i = this.ws(keyEnd);
      if (b[i] !== COLON) return -1;
      i = member(keyStart, keyEnd, this.ws(i + 1));
      if (i < 0) return -1;
      i = this.ws(i);
      if (b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      return b[i] === CLOSE_BRACE ? i + 1 : -1;
    }
  }

  private hasEscape(start: number, end: number): boolean {
    for (let k = start; k < end; k++) if (this.b[k] === BACKSLASH) return true;
    return false;
  }

  /** A feature object at i; sets lastInputs. */
  private feature(i: number): number {
    // Later duplicates of a key win, as in JSON.parse: each occurrence overwrites.
    let isFeature = false;
    let geometry = UNKNOWN;
    let plain = true;
    const polygon = this.lastPolygon;
    const end = this.members(i, (ks, ke, v) => {
      if (this.hasEscape(ks, ke)) plain = false;
      if (this.is(ks, ke, KEY_TYPE)) {
        const e = this.value(v);
        isFeature = e >= 0 && this.is(v, e, VALUE_FEATURE);
        return e;
      }
      if (this.is(ks, ke, KEY_GEOMETRY)) {
        if (this.b[v] !== OPEN_BRACE) {
          geometry = UNKNOWN;
          polygon[0] = polygon[1] = -1;
          return this.value(v);
        }
        const e = this.geometry(v);
        geometry = this.geometryInputs;
        polygon.set(this.geometryPolygon);
        return e;
      }
      return this.value(v);
    });
    this.lastInputs = plain && isFeature ? geometry : UNKNOWN;
    if (!(plain && isFeature)) polygon[0] = polygon[1] = -1;
    return end;
  }

  /** A geometry object at i; sets geometryInputs. */
  private geometry(i: number): number {
    let type = 'other' as 'polygon' | 'point' | 'multi' | 'other';
    let polygons = -1; // elements of `coordinates`; -1 when it is not an array
    let coordsStart = -1;
    let coordsEnd = -1;
    let plain = true;
    const end = this.members(i, (ks, ke, v) => {
      if (this.hasEscape(ks, ke)) plain = false;
      if (this.is(ks, ke, KEY_TYPE)) {
        const e = this.value(v);
        type = e < 0 ? 'other' : this.is(v, e, VALUE_POLYGON) ? 'polygon' : this.is(v, e, VALUE_POINT) ? 'point' : this.is(v, e, VALUE_MULTIPOLYGON) ? 'multi' : 'other';
        return e;
      }
      if (this.is(ks, ke, KEY_COORDINATES)) {
        coordsStart = v;
        if (this.b[v] !== OPEN_BRACKET) {
          polygons = -1;
          return (coordsEnd = this.value(v));
        }
        return (coordsEnd = this.elements(v, (n) => (polygons = n)));
      }
      return this.value(v);
    });
    // convertFeature: Polygon and Point give one input; so does a MultiPolygon of one polygon, or one whose
    // coordinates are not an array (the core then says what is wrong with them).
    const one = type === 'polygon' || type === 'point' || (type === 'multi' && polygons <= 1 && polygons !== 0);
    this.geometryInputs = plain && one ? 1 : UNKNOWN;
    const polygon = plain && type === 'polygon' && coordsStart >= 0;
    this.geometryPolygon[0] = polygon ? coordsStart : -1;
    this.geometryPolygon[1] = polygon ? coordsEnd : -1;
    return end;
  }

  /** An array at i: counts its elements (handed to `count`); just past it, or -1. */
  private elements(i: number, count: (n: number) => void): number {
    const b = this.b;
    let n = 0;
    i = this.ws(i + 1);
    if (b[i] === CLOSE_BRACKET) {
      count(0);
      return i + 1;
    }
    for (;;) {
      i = this.value(i);
      if (i < 0) return -1;
      n++;
      i = this.ws(i);
      if (b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      count(n);
      return b[i] === CLOSE_BRACKET ? i + 1 : -1;
    }
  }
}
