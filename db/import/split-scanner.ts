// The byte scanner of geojson-split.ts: walks a FeatureCollection's bytes (in memory, or a file through a moving
// window), following strings and brackets without parsing values (core/json/scan.ts, loose), and records where each
// feature lies. In a file of its own so that the split and its handing over to another thread (geojson-split.ts)
// read on their own.
//
// The window: core/json/scan.ts reads the bytes the window holds, b[0, n), and says MORE when a token runs past them;
// the scanner then reads more of the file into the window and scans that token again from its start (a feature, a
// member of the collection). The window moves only between features, so a feature is scanned again only when it
// straddles a read: once every few MiB.

import { isUtf8 } from 'node:buffer';
import { readSync } from 'node:fs';
import { freeBuffers } from './free-buffers.ts';
import { BAD, BYTE, MORE, ascii, bytesAre, member, seen, skipSpace, skipValue, text } from '../../core/json/scan.ts';

const { CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET } = BYTE;

/** inputs[i] of a feature whose count only its conversion and validation can tell. */
export const UNKNOWN = -1;

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
  /**
   * Whether take() would answer at once. Without it the scan waits in take() when it reaches `start`; with it, it
   * scans on meanwhile (the other thread may be late: still starting, or on a loaded machine) and takes them as soon
   * as they are there, dropping its own features from `start` on — or keeps its own if it reaches the end first.
   */
  ready?(): boolean;
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
  starts: Float64Array;
  ends: Float64Array;
  inputs: Int8Array;
  /** On a SharedArrayBuffer with `shared`: the import's job table hands it to the worker threads as it is. */
  polygons: Float64Array;
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
  /** The other thread's tables, once appended to these (tableViews). */
  private held: TailTables | null = null;
  /** this.count when the scan passed the tail's start while its features were not there yet; -1 before. */
  private tailCount = -1;

  /** b[0, n) holds bytes; with a stream, more are read into b as the scan needs them, from file offset `at` on. */
  /**
   * `capacity`: features the tables are made for at first (they grow past it). `shared`: the polygons table on a
   * SharedArrayBuffer.
   */
  constructor(public b: Uint8Array, private n: number, private readonly stream: Stream | null, at = 0, capacity = 1024, private readonly shared = false) {
    this.starts = new Float64Array(capacity);
    this.ends = new Float64Array(capacity);
    this.inputs = new Int8Array(capacity);
    this.polygons = this.polygonTable(2 * capacity);
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

  /** The byte at window position i, or -1 past the bytes read (the window may hold stale bytes there). */
  byte(i: number): number {
    return i < this.n ? this.b[i]! : -1;
  }

  /** The first byte from i on that is not whitespace, reading more as needed (past the end at the end of the file). */
  ws(i: number): number {
    for (;;) {
      i = skipSpace(this.b, i, this.n);
      if (i < this.n || !this.more()) return i;
    }
  }

  /** `scan` of the window from i, again after reading more for as long as it says MORE; BAD at the end of the file. */
  private whole(i: number, scan: (b: Uint8Array, i: number, n: number) => number): number {
    for (;;) {
      const end = scan(this.b, i, this.n);
      if (end !== MORE) return end;
      if (!this.more()) return BAD;
    }
  }

  /** The member whose key is at i (core member(): seen.keyStart/keyEnd): its value's first byte, or BAD. */
  member(i: number): number {
    return this.whole(i, member);
  }

  /** Just past the value at i (core skipValue), or BAD. */
  value(i: number): number {
    return this.whole(i, skipValue);
  }

  is(start: number, end: number, what: Uint8Array): boolean {
    if (end - start !== what.length) return false;
    for (let k = 0; k < what.length; k++) if (this.b[start + k] !== what[k]) return false;
    return true;
  }

  text(start: number, end: number): string {
    return text(this.b, start, end);
  }

  /** The features array at i (its bracket): records each element (file offsets); just past the array, or -1. */
  features(i: number): number {
    i = this.ws(i + 1);
    if (this.byte(i) === CLOSE_BRACKET) return i + 1;
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
        if (this.tailCount < 0 && at === this.tail.start && this.tail.ready && !this.tail.ready()) {
          this.tailCount = this.count; // not there yet: scan on, and take them once they are
        } else if (this.tailCount >= 0 ? this.tail.ready!() : at === this.tail.start) {
          // This thread has reached, at an element's start, the byte the other thread began at: from there on it
          // would scan exactly what that thread scanned, so its features are these ones.
          const t = this.tail.take();
          this.tail = null;
          if (t) {
            if (this.tailCount >= 0) this.count = this.tailCount; // this thread's own from that byte on go
            this.append(t);
            return this.jump(t.end);
          }
        } else if (this.tailCount < 0 && at > this.tail.start) {
          this.tail = null; // that byte is no element's start (inside a string, a nested value): its split is worthless
        }
      }
      const start = i;
      const end = this.whole(i, this.element);
      if (end < 0) return -1;
      this.push(start, end, this.lastInputs, this.lastPolygon);
      i = this.ws(end);
      if (this.byte(i) === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      return this.byte(i) === CLOSE_BRACKET ? i + 1 : -1;
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
    // Held, not freed (a megabyte or so: free-buffers.ts), as long as these tables are.
    this.held = t;
    if (!t.utf8) this.utf8 = false;
  }

  /** This scan's tables (file offsets), of their exact length; for a scan from an element (featureElements). */
  tables(end: number): TailTables {
    return { ...this.tableViews(), end: this.base + end, utf8: this.utf8Done() };
  }

  /**
   * The tables up to the last feature: views, not copies. Past it they were never written, so on a table of the
   * mmap()ed size (over 128 KiB) those pages were never touched and take no memory; and copying them would free the
   * table, which costs more than its own size (free-buffers.ts).
   */
  tableViews(): Pick<TailTables, 'starts' | 'ends' | 'inputs' | 'polygons'> & { held?: unknown } {
    const n = this.count;
    const views = { starts: this.starts.subarray(0, n), ends: this.ends.subarray(0, n), inputs: this.inputs.subarray(0, n), polygons: this.polygons.subarray(0, 2 * n) };
    return this.held ? { ...views, held: this.held } : views;
  }

  /** Frees a file's window (bytes given in memory are the caller's) once the split is done. */
  dispose(): void {
    if (this.stream) freeBuffers([this.b.buffer]);
  }

  private polygonTable(n: number): Float64Array {
    return this.shared ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n);
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
    this.polygons = grow(this.polygons, (n) => this.polygonTable(n));
  }

  /** Set by element(): the feature's parcel inputs, 1 or UNKNOWN; and its polygon's coordinates, or -1, -1. */
  lastInputs = UNKNOWN;
  readonly lastPolygon = new Float64Array(2);
  /** Set by geometry(). */
  private geometryInputs = UNKNOWN;
  private readonly geometryPolygon = new Float64Array(2);
  /** Set by countElements(). */
  private counted = 0;

  /** An element of the features array at b[i], read from the window b[0, n): a feature object, or any value. */
  private readonly element = (b: Uint8Array, i: number, n: number): number => {
    this.lastInputs = UNKNOWN;
    this.lastPolygon[0] = this.lastPolygon[1] = -1;
    return b[i] === OPEN_BRACE ? this.feature(b, i, n) : skipValue(b, i, n);
  };

  /**
   * The members of the object at b[i] (its brace): `read(keyStart, keyEnd, value)` reads each member's value from its
   * first byte and returns just past it. Just past the object, BAD or MORE; sets `plain`.
   */
  private members(b: Uint8Array, i: number, n: number, read: (keyStart: number, keyEnd: number, value: number) => number): number {
    let plain = true;
    i = skipSpace(b, i + 1, n);
    if (i >= n) return MORE;
    if (b[i] !== CLOSE_BRACE) {
      for (;;) {
        const v = member(b, i, n);
        if (v < 0) return v;
        if (seen.escaped) plain = false;
        const end = read(seen.keyStart, seen.keyEnd, v);
        if (end < 0) return end;
        i = skipSpace(b, end, n);
        if (i >= n) return MORE;
        const c = b[i];
        if (c === COMMA) {
          i = skipSpace(b, i + 1, n);
          continue;
        }
        if (c !== CLOSE_BRACE) return BAD;
        break;
      }
    }
    this.plain = plain;
    return i + 1;
  }
  /** Set by members(): no key of the object had an escape. */
  private plain = true;

  /** A feature object at b[i]; sets lastInputs and lastPolygon. */
  private feature(b: Uint8Array, i: number, n: number): number {
    // Later duplicates of a key win, as in JSON.parse: each occurrence overwrites.
    let isFeature = false;
    let geometry = UNKNOWN;
    const polygon = this.lastPolygon;
    const end = this.members(b, i, n, (ks, ke, v) => {
      if (bytesAre(b, ks, ke, KEY_TYPE)) {
        const e = skipValue(b, v, n);
        isFeature = e >= 0 && bytesAre(b, v, e, VALUE_FEATURE);
        return e;
      }
      if (bytesAre(b, ks, ke, KEY_GEOMETRY)) {
        if (b[v] !== OPEN_BRACE) {
          geometry = UNKNOWN;
          polygon[0] = polygon[1] = -1;
          return skipValue(b, v, n);
        }
        const e = this.geometry(b, v, n);
        geometry = this.geometryInputs;
        polygon.set(this.geometryPolygon);
        return e;
      }
      return skipValue(b, v, n);
    });
    const plain = this.plain;
    this.lastInputs = plain && isFeature ? geometry : UNKNOWN;
    if (!(plain && isFeature)) polygon[0] = polygon[1] = -1;
    return end;
  }

  /** A geometry object at b[i]; sets geometryInputs and geometryPolygon. */
  private geometry(b: Uint8Array, i: number, n: number): number {
    let type = 'other' as 'polygon' | 'point' | 'multi' | 'other';
    let polygons = -1; // elements of `coordinates`; -1 when it is not an array
    let coordsStart = -1;
    let coordsEnd = -1;
    const end = this.members(b, i, n, (ks, ke, v) => {
      if (bytesAre(b, ks, ke, KEY_TYPE)) {
        const e = skipValue(b, v, n);
        type = e < 0 ? 'other' : bytesAre(b, v, e, VALUE_POLYGON) ? 'polygon' : bytesAre(b, v, e, VALUE_POINT) ? 'point' : bytesAre(b, v, e, VALUE_MULTIPOLYGON) ? 'multi' : 'other';
        return e;
      }
      if (bytesAre(b, ks, ke, KEY_COORDINATES)) {
        coordsStart = v;
        if (b[v] !== OPEN_BRACKET) {
          polygons = -1;
          return (coordsEnd = skipValue(b, v, n));
        }
        coordsEnd = this.countElements(b, v, n);
        polygons = this.counted;
        return coordsEnd;
      }
      return skipValue(b, v, n);
    });
    const plain = this.plain;
    // convertFeature: Polygon and Point give one input; so does a MultiPolygon of one polygon, or one whose
    // coordinates are not an array (the core then says what is wrong with them).
    const one = type === 'polygon' || type === 'point' || (type === 'multi' && polygons <= 1 && polygons !== 0);
    this.geometryInputs = plain && one ? 1 : UNKNOWN;
    const polygon = plain && type === 'polygon' && coordsStart >= 0;
    this.geometryPolygon[0] = polygon ? coordsStart : -1;
    this.geometryPolygon[1] = polygon ? coordsEnd : -1;
    return end;
  }

  /** An array at b[i]: counts its elements (into `counted`); just past it, BAD or MORE. */
  private countElements(b: Uint8Array, i: number, n: number): number {
    let count = 0;
    i = skipSpace(b, i + 1, n);
    if (i >= n) return MORE;
    if (b[i] === CLOSE_BRACKET) {
      this.counted = 0;
      return i + 1;
    }
    for (;;) {
      i = skipValue(b, i, n);
      if (i < 0) return i;
      count++;
      i = skipSpace(b, i, n);
      if (i >= n) return MORE;
      const c = b[i];
      if (c === COMMA) {
        i = skipSpace(b, i + 1, n);
        continue;
      }
      this.counted = count;
      return c === CLOSE_BRACKET ? i + 1 : BAD;
    }
  }
}
