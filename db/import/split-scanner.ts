// The byte scanner of geojson-split.ts: walks a FeatureCollection's bytes (in memory, or a file through a moving
// window), following strings and brackets without parsing values, and records where each feature lies. In a file
// of its own so that the split and its handing over to another thread (geojson-split.ts) read on their own.

import { isUtf8 } from 'node:buffer';
import { readSync } from 'node:fs';

/** inputs[i] of a feature whose count only its conversion and validation can tell. */
export const UNKNOWN = -1;

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

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
export const KEY_FEATURES = ascii('"features"');
const KEY_TYPE = ascii('"type"');
const KEY_GEOMETRY = ascii('"geometry"');
const KEY_COORDINATES = ascii('"coordinates"');
const VALUE_FEATURE = ascii('"Feature"');
const VALUE_POLYGON = ascii('"Polygon"');
const VALUE_POINT = ascii('"Point"');
const VALUE_MULTIPOLYGON = ascii('"MultiPolygon"');

/** A file read through the scanner's window. */
/** Features split by another thread from file offset `start` (see geojson-split.ts). */
export interface TailSplit {
  start: number;
  /** Waits for them; null when that thread could not split them (the scan then goes on by itself). */
  take(): TailTables | null;
}

/** Features from a file offset to the end of the features array: file offsets, and the offset just past the array. */
export interface TailTables {
  starts: Float64Array;
  ends: Float64Array;
  inputs: Int8Array;
  polygons: Float64Array;
  end: number;
  /** Every byte from the start to the end of the file is UTF-8. */
  utf8: boolean;
}

export interface Stream {
  fd: number;
  size: number;
}

export class Scanner {
  starts = new Float64Array(1024);
  ends = new Float64Array(1024);
  inputs = new Int8Array(1024);
  polygons = new Float64Array(2048);
  count = 0;
  /** File offset of b[0]: the window has moved this far (0 for bytes in memory). */
  private base = 0;
  /** Every byte the window has taken in is read from the file (or there is no file). */
  private eof: boolean;
  /** File offset up to which the bytes are known to be UTF-8, and whether all of them were. */
  private checked = 0;
  private utf8 = true;

  /**
   * Features from this file offset on were split by another thread (see geojson-split.ts): features() takes them
   * when it reaches that offset at the start of an element, and forgets them once past it.
   */
  tail: TailSplit | null = null;

  /** b[0, n) holds bytes; with a stream, more are read into b as the scan needs them, from file offset `at` on. */
  constructor(public b: Uint8Array, private n: number, private readonly stream: Stream | null, at = 0) {
    this.eof = stream === null;
    this.base = this.checked = at;
    if (stream) this.more();
  }

  /** File offset of window position i. */
  offset(i: number): number {
    return this.base + i;
  }

  /** Moves the window to file offset `at`, every byte before it taken as read and checked; returns its position (0). */
  private jump(at: number): number {
    this.base = at;
    this.n = 0;
    this.checked = Math.max(this.checked, at);
    this.eof = false;
    this.more();
    return 0;
  }

  /**
   * Reads more of the file into the window, growing it when it is full (positions stay valid: the window only
   * moves in compact(), between features). False at the end of the file. Loops that cache `b` re-read it after.
   */
  private more(): boolean {
    if (this.eof) return false;
    const { fd, size } = this.stream!;
    if (this.n === this.b.length) {
      const bigger = new Uint8Array(this.b.length * 2);
      bigger.set(this.b.subarray(0, this.n));
      this.b = bigger;
    }
    const want = Math.min(this.b.length - this.n, size - (this.base + this.n));
    const got = want > 0 ? readSync(fd, this.b, this.n, want, this.base + this.n) : 0;
    this.n += got;
    if (got === 0 || this.base + this.n >= size) this.eof = true;
    this.checkUtf8();
    return got > 0;
  }

  /** Checks the bytes read since the last check, up to the last character that is certainly whole. */
  private checkUtf8(): void {
    let to = this.n;
    if (!this.eof) {
      // Back to the last byte that starts a character: the one it starts may go on in the next read.
      while (to > 0 && to > this.n - 4 && (this.b[to - 1]! & 0xc0) === 0x80) to--;
      if (to > 0) to--;
    }
    const from = this.checked - this.base;
    if (to > from) {
      if (this.utf8 && !isUtf8(this.b.subarray(from, to))) this.utf8 = false;
      this.checked = this.base + to;
    }
  }

  /** Whether every byte of the file is UTF-8 (reads and checks what the scan has not). */
  utf8Done(): boolean {
    while (this.more());
    return this.utf8;
  }

  /** Forgets the bytes before i (a feature's start) when they are most of the window; returns i's new position. */
  private compact(i: number): number {
    if (this.stream === null || i < this.b.length >> 1) return i;
    const k = Math.min(i, this.checked - this.base); // bytes not yet checked for UTF-8 stay
    this.b.copyWithin(0, k, this.n);
    this.n -= k;
    this.base += k;
    return i - k;
  }

  /** i is past the last byte: nothing follows in the file either. */
  atEnd(i: number): boolean {
    return i >= this.n && !this.more();
  }

  ws(i: number): number {
    for (;;) {
      if (i >= this.n && !this.more()) return i;
      if (CLASS[this.b[i]!] !== WS) return i;
      i++;
    }
  }

  /** Just past the string starting at i (a quote), or -1. */
  string(i: number): number {
    let { b, n } = this;
    for (i++; ; i++) {
      if (i >= n) {
        if (!this.more()) return -1;
        ({ b, n } = this);
      }
      const c = b[i];
      if (c === QUOTE) return i + 1;
      if (c === BACKSLASH) i++;
    }
  }

  /** Just past the value starting at i, or -1: strings and brackets are followed, primitives run to a delimiter. */
  value(i: number): number {
    if (i >= this.n && !this.more()) return -1;
    let { b, n } = this;
    const k = CLASS[b[i]!];
    if (k === STRING) return this.string(i);
    if (k === OPEN) {
      let depth = 0;
      for (;;) {
        if (i >= n) {
          if (!this.more()) return -1;
          ({ b, n } = this);
        }
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
          ({ b, n } = this);
        } else if (c === OPEN) {
          depth++;
          i++;
        } else {
          i++;
          if (--depth === 0) return i;
        }
      }
    }
    const start = i;
    for (;;) {
      if (i >= n) {
        if (!this.more()) break;
        ({ b, n } = this);
      }
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

  /** The features array at i (its bracket): records each element (file offsets); just past the array, or -1. */
  features(i: number): number {
    i = this.ws(i + 1);
    if (this.b[i] === CLOSE_BRACKET) return i + 1;
    return this.elements_(i);
  }

  /** The features array's elements from the one at i on: records each; just past the array, or -1. */
  featureElements(i: number): number {
    return this.elements_(i);
  }

  private elements_(i: number): number {
    for (;;) {
      i = this.compact(i);
      if (this.tail) {
        const at = this.base + i;
        if (at === this.tail.start) {
          // This thread has reached, at an element's start, the byte the other thread began at: from there on it
          // would scan exactly what that thread scanned, so its features are these ones.
          const t = this.tail.take();
          this.tail = null;
          if (t) {
            this.append(t);
            return this.jump(t.end);
          }
        } else if (at > this.tail.start) {
          this.tail = null; // that byte is no element's start (inside a string, a nested value): its split is worthless
        }
      }
      const start = i;
      let inputs = UNKNOWN;
      let end: number;
      this.lastPolygon[0] = this.lastPolygon[1] = -1;
      if (this.b[i] === OPEN_BRACE) {
        end = this.feature(i);
        inputs = this.lastInputs;
      } else {
        end = this.value(i);
      }
      if (end < 0) return -1;
      this.push(start, end, inputs, this.lastPolygon);
      i = this.ws(end);
      if (this.b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      return this.b[i] === CLOSE_BRACKET ? i + 1 : -1;
    }
  }

  /** Another thread's features (file offsets), after this one's; its bytes' UTF-8 verdict joins this one's. */
  private append(t: TailTables): void {
    while (this.count + t.starts.length > this.starts.length) this.grow();
    this.starts.set(t.starts, this.count);
    this.ends.set(t.ends, this.count);
    this.inputs.set(t.inputs, this.count);
    this.polygons.set(t.polygons, 2 * this.count);
    this.count += t.starts.length;
    if (!t.utf8) this.utf8 = false;
  }

  /** This scan's tables (file offsets), of their exact length; for a scan from an element (featureElements). */
  tables(end: number): TailTables {
    return {
      starts: this.starts.slice(0, this.count), ends: this.ends.slice(0, this.count), inputs: this.inputs.slice(0, this.count),
      polygons: this.polygons.slice(0, 2 * this.count), end: this.base + end, utf8: this.utf8Done(),
    };
  }

  private push(start: number, end: number, inputs: number, polygon: Float64Array): void {
    if (this.count === this.starts.length) this.grow();
    const base = this.base;
    this.polygons[2 * this.count] = polygon[0]! < 0 ? -1 : base + polygon[0]!;
    this.polygons[2 * this.count + 1] = polygon[1]! < 0 ? -1 : base + polygon[1]!;
    this.starts[this.count] = base + start;
    this.ends[this.count] = base + end;
    this.inputs[this.count] = inputs;
    this.count++;
  }

  private grow(): void {
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
    i = this.ws(i + 1);
    if (this.b[i] === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (this.b[i] !== QUOTE) return -1;
      const keyStart = i;
      const keyEnd = this.string(i);
      if (keyEnd < 0) return -1;
      i = this.ws(keyEnd);
      if (this.b[i] !== COLON) return -1;
      i = member(keyStart, keyEnd, this.ws(i + 1));
      if (i < 0) return -1;
      i = this.ws(i);
      if (this.b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      return this.b[i] === CLOSE_BRACE ? i + 1 : -1;
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
    let n = 0;
    i = this.ws(i + 1);
    if (this.b[i] === CLOSE_BRACKET) {
      count(0);
      return i + 1;
    }
    for (;;) {
      i = this.value(i);
      if (i < 0) return -1;
      n++;
      i = this.ws(i);
      if (this.b[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      count(n);
      return this.b[i] === CLOSE_BRACKET ? i + 1 : -1;
    }
  }
}
