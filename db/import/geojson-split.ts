// Splits a GeoJSON FeatureCollection into its features by looking at the bytes, without parsing them, so that
// worker threads can parse and validate the features in slices while this thread writes the mirror. Parsing
// 100,000 features in one JSON.parse took most of a second on this thread, and kept every one of them alive
// (and the garbage collector busy) until the import ended. A file is split through a window that moves forward
// between features (splitFeatureFile), so the split holds a few MiB of it, not all of it.
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

import { readSync } from 'node:fs';
import { BYTE, isSpace, seen } from '../../core/json/scan.ts';
import { KEY_FEATURES, Scanner, UNKNOWN, type TailSplit, type TailTables } from './split-scanner.ts';

const { CLOSE_BRACE, COMMA, OPEN_BRACE, OPEN_BRACKET } = BYTE;

export { UNKNOWN };
export type { TailSplit, TailTables };

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
  /**
   * The tables another thread split the file's second part into, appended to these: kept as long as these are rather
   * than freed during the import (free-buffers.ts). Nothing reads them.
   */
  held?: unknown;
  /** The collection's other members (type, crs, furrow…), parsed. */
  members: Record<string, unknown>;
}

/** Splits the FeatureCollection in b[from..], or null when it is anything else (or broken). */
export function splitFeatureCollection(b: Uint8Array, from = 0): SplitCollection | null {
  const s = new Scanner(b, b.length, null);
  try {
    return split(s, from);
  } finally {
    s.dispose();
  }
}

/** What splitFeatureFile saw of the bytes besides the features. */
export interface FileSplit extends SplitCollection {
  /** Every byte of the file is UTF-8. */
  utf8: boolean;
}

/**
 * Bytes read from the file at a time; a feature larger than this grows the window to hold it. Under glibc's 128 KiB
 * mmap threshold: freeing a 4 MiB window left every thread's malloc arena keeping up to 8 MiB of freed memory
 * (free-buffers.ts). A feature straddling two reads is scanned again, once per 32 KiB or so.
 */
export const WINDOW_BYTES = 64 << 10;

/**
 * Splits the FeatureCollection in the file open as `fd` (`size` bytes, from byte `from`) without holding it:
 * the file is read through a window that moves forward between features, so memory is the window (a few MiB,
 * or the largest feature) plus the per-feature table, whatever the file's size. Null as splitFeatureCollection.
 *
 * With `tail`, a large file's second part is split by another thread at the same time (about a third of a second
 * for 85 MB, before any feature could be validated): this thread picks a byte there that looks like the start of a
 * feature (`}`, `,` and `{` with nothing but whitespace between), and `tail` has the other thread split the features
 * from it on (splitFeaturesFrom). The guess is only used when this thread's own scan then reaches that very byte at
 * the start of an element of the features array — the scan from there would be the same — and is worthless
 * otherwise (a string or a nested value that looks alike): then this thread simply splits the rest itself.
 */
export function splitFeatureFile(fd: number, size: number, from = 0, window = WINDOW_BYTES, tail?: TailStarter): FileSplit | null {
  // Polygons shared: the job table hands them to the worker threads without a copy (jobs.ts jobTable).
  const s = new Scanner(new Uint8Array(Math.max(16, Math.min(window, size))), 0, { fd, size }, 0, tableCapacity(size - from), true);
  if (tail && size - from >= (tail.minBytes ?? TAIL_MIN_BYTES)) {
    const start = elementStartNear(fd, from + Math.floor((size - from) * TAIL_AT));
    if (start >= 0) s.tail = tail.from(start);
  }
  try {
    const out = split(s, from);
    return out && { ...out, utf8: s.utf8Done() };
  } finally {
    s.dispose();
  }
}

/** Has another thread split the features from file offset `start` on (splitFeaturesFrom); null when it cannot. */
export interface TailStarter {
  from(start: number): TailSplit | null;
  /** Files smaller than this are split by one thread (TAIL_MIN_BYTES; tests set less). */
  minBytes?: number;
}

/** Files smaller than this are split by one thread. */
export const TAIL_MIN_BYTES = 8 << 20;
/**
 * Where the other thread starts, as a fraction of the file: past the middle, since it starts later (a new worker
 * thread is still loading its code when the split begins).
 */
const TAIL_AT = 0.55;
/** How far past that point to look for the start of a feature. */
const LOOK_BYTES = 1 << 16;

/** The first byte from `at` on that follows `}`, `,` and whitespace and is `{`, within LOOK_BYTES; -1 if none. */
function elementStartNear(fd: number, at: number): number {
  const b = Buffer.alloc(LOOK_BYTES);
  const n = readSync(fd, b, 0, b.length, at);
  for (let i = b.indexOf(CLOSE_BRACE); i >= 0 && i < n; i = b.indexOf(CLOSE_BRACE, i + 1)) {
    let k = i + 1;
    while (k < n && isSpace(b[k]!)) k++;
    if (b[k] !== COMMA) continue;
    k++;
    while (k < n && isSpace(b[k]!)) k++;
    if (k < n && b[k] === OPEN_BRACE) return at + k;
  }
  return -1;
}

/**
 * The features of the file's features array from file offset `start` on, taken as the start of one of its elements:
 * what another thread's splitFeatureFile will use if its own scan finds an element starting there. Null when the
 * bytes from there do not scan as elements up to the end of the array.
 */
export function splitFeaturesFrom(fd: number, size: number, start: number, window = WINDOW_BYTES): TailTables | null {
  const s = new Scanner(new Uint8Array(Math.max(16, Math.min(window, size - start))), 0, { fd, size }, start, tableCapacity(size - start));
  try {
    const end = s.featureElements(0);
    return end < 0 ? null : s.tables(end);
  } finally {
    s.dispose();
  }
}

function split(s: Scanner, from: number): SplitCollection | null {
  let i = s.ws(from);
  if (s.byte(i) !== OPEN_BRACE) return null;
  const rest: string[] = [];
  let found = false;
  i = s.ws(i + 1);
  if (s.byte(i) === CLOSE_BRACE) return null;
  for (;;) {
    const v = s.member(i);
    if (v < 0) return null;
    const keyStart = seen.keyStart;
    if (s.is(keyStart, seen.keyEnd, KEY_FEATURES)) {
      if (found || s.byte(v) !== OPEN_BRACKET) return null;
      found = true;
      i = s.features(v);
    } else {
      const end = s.value(v);
      if (end < 0) return null;
      rest.push(s.text(keyStart, end));
      i = end;
    }
    if (i < 0) return null;
    i = s.ws(i);
    if (s.byte(i) === COMMA) {
      i = s.ws(i + 1);
      continue;
    }
    if (s.byte(i) !== CLOSE_BRACE) return null;
    break;
  }
  if (!found || !s.atEnd(s.ws(i + 1)) || s.count === 0) return null;
  let members: Record<string, unknown>;
  try {
    members = JSON.parse(`{${rest.join(',')}}`) as Record<string, unknown>;
  } catch {
    return null;
  }
  // A key spelt with escapes ("feat\u0075res") is `features` too: the whole parse sorts that out.
  if (Object.hasOwn(members, 'features') || members['type'] !== 'FeatureCollection') return null;
  return { ...s.tableViews(), members };
}

/**
 * Features the split of `bytes` makes its tables for at first: one per 512 bytes, more than a typical field's
 * feature takes (about 850 bytes with its properties), so that they rarely grow (each growth frees the table before,
 * see free-buffers.ts); the part never written takes no memory (Scanner.tableViews).
 */
function tableCapacity(bytes: number): number {
  return Math.max(1024, Math.ceil(bytes / 512));
}

