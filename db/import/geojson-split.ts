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

import { CLOSE_BRACE, COLON, COMMA, KEY_FEATURES, OPEN_BRACE, OPEN_BRACKET, QUOTE, Scanner, UNKNOWN } from './split-scanner.ts';

export { UNKNOWN };

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

/** Splits the FeatureCollection in b[from..], or null when it is anything else (or broken). */
export function splitFeatureCollection(b: Uint8Array, from = 0): SplitCollection | null {
  return split(new Scanner(b, b.length, null), from);
}

/** What splitFeatureFile saw of the bytes besides the features. */
export interface FileSplit extends SplitCollection {
  /** Every byte of the file is UTF-8. */
  utf8: boolean;
}

/** Bytes read from the file at a time; a feature larger than this grows the window to hold it. */
export const WINDOW_BYTES = 4 << 20;

/**
 * Splits the FeatureCollection in the file open as `fd` (`size` bytes, from byte `from`) without holding it:
 * the file is read through a window that moves forward between features, so memory is the window (a few MiB,
 * or the largest feature) plus the per-feature table, whatever the file's size. Null as splitFeatureCollection.
 */
export function splitFeatureFile(fd: number, size: number, from = 0, window = WINDOW_BYTES): FileSplit | null {
  const s = new Scanner(new Uint8Array(Math.max(16, Math.min(window, size))), 0, { fd, size });
  const out = split(s, from);
  return out && { ...out, utf8: s.utf8Done() };
}

function split(s: Scanner, from: number): SplitCollection | null {
  let i = s.ws(from);
  if (s.b[i] !== OPEN_BRACE) return null;
  const rest: string[] = [];
  let found = false;
  i = s.ws(i + 1);
  if (s.b[i] === CLOSE_BRACE) return null;
  for (;;) {
    if (s.b[i] !== QUOTE) return null;
    const keyStart = i;
    const keyEnd = s.string(i);
    if (keyEnd < 0) return null;
    i = s.ws(keyEnd);
    if (s.b[i] !== COLON) return null;
    i = s.ws(i + 1);
    if (s.is(keyStart, keyEnd, KEY_FEATURES)) {
      if (found || s.b[i] !== OPEN_BRACKET) return null;
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
    if (s.b[i] === COMMA) {
      i = s.ws(i + 1);
      continue;
    }
    if (s.b[i] !== CLOSE_BRACE) return null;
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
  return {
    // Copies of the exact length: the tables grew by doubling, and a 300,000-feature file would keep 40 % spare.
    starts: s.starts.slice(0, s.count), ends: s.ends.slice(0, s.count), inputs: s.inputs.slice(0, s.count),
    polygons: s.polygons.slice(0, 2 * s.count), members,
  };
}

