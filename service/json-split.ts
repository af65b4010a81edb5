// Splits a large JSON request body into its envelope and the items of one top-level array (the parcels) without
// parsing it, so that each item can be parsed and validated as its own job on a worker thread, and no thread
// spends a whole 30 MB parse in one go. The split is exact or refused: JSON.parse of the envelope, with the
// array's items put back as JSON.parse of each item, is JSON.parse of the body whenever every piece parses; and
// the body is valid JSON only if every piece is (the separators in between are checked here).

export interface SplitBody {
  /** The body's text with the array emptied (`"parcels":[]`), to parse as the request's envelope. */
  envelope: string;
  /** Byte ranges [start, end) of the array's items, in order. */
  items: [number, number][];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Keeps a byte-order mark as U+FEFF: where JSON.parse of the whole would fail on one, so must a piece's. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of bytes [start, end), decoded as the whole body would have been. */
export function decodeRange(b: Uint8Array, start: number, end: number): string {
  return decoder.decode(b.subarray(start, end));
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isSpace(b[i]!)) i++;
  return i;
}

/** Index just past the string starting at b[i] (a quote), or b.length if it never ends. */
function skipString(b: Uint8Array, i: number): number {
  for (i++; i < b.length; i++) {
    const c = b[i]!;
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return b.length;
}

/**
 * Index just past the value starting at b[i]. Loose on purpose: it only has to find where a valid value ends;
 * an invalid one is caught when its piece is parsed.
 */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (; i < b.length; i++) {
      const d = b[i]!;
      if (d === QUOTE) i = skipString(b, i) - 1;
      else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1;
      }
    }
    return b.length;
  }
  while (i < b.length) {
    const d = b[i]!;
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || isSpace(d)) break;
    i++;
  }
  return i;
}

function keyIs(b: Uint8Array, start: number, end: number, key: Uint8Array): boolean {
  if (end - start - 2 !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[start + 1 + k] !== key[k]) return false;
  return true;
}

/**
 * The split of a body that is an object holding `key` once, as an array, or null for anything else (another
 * shape, an escape in a top-level key that could spell `key`, `key` twice, a byte-order mark, a separator that
 * is not a comma): the caller then parses the body whole, which also gives the right error for invalid JSON.
 */
export function splitArrayMember(b: Uint8Array, key: string): SplitBody | null {
  const wanted = new TextEncoder().encode(key);
  let i = skipSpace(b, 0);
  if (b[i] !== OPEN_OBJECT) return null;
  i = skipSpace(b, i + 1);
  let array: { open: number; close: number; items: [number, number][] } | null = null;
  if (b[i] === CLOSE_OBJECT) return null;
  for (;;) {
    if (b[i] !== QUOTE) return null;
    const keyStart = i;
    i = skipString(b, i);
    for (let k = keyStart + 1; k < i - 1; k++) if (b[k] === BACKSLASH) return null;
    const isKey = keyIs(b, keyStart, i, wanted);
    i = skipSpace(b, i);
    if (b[i] !== COLON) return null;
    i = skipSpace(b, i + 1);
    if (isKey) {
      if (array !== null || b[i] !== OPEN_ARRAY) return null;
      array = { open: i, close: -1, items: [] };
      i = skipSpace(b, i + 1);
      if (b[i] !== CLOSE_ARRAY) {
        for (;;) {
          const start = i;
          i = skipValue(b, i);
          if (i === start) return null;
          array.items.push([start, i]);
          i = skipSpace(b, i);
          if (b[i] === CLOSE_ARRAY) break;
          if (b[i] !== COMMA) return null;
          i = skipSpace(b, i + 1);
        }
      }
      array.close = i;
      i++;
    } else {
      const start = i;
      i = skipValue(b, i);
      if (i === start) return null;
    }
    i = skipSpace(b, i);
    if (b[i] === CLOSE_OBJECT) break;
    if (b[i] !== COMMA) return null;
    i = skipSpace(b, i + 1);
  }
  if (array === null || skipSpace(b, i + 1) !== b.length) return null;
  const envelope = decoder.decode(b.subarray(0, array.open + 1)) + decoder.decode(b.subarray(array.close));
  return { envelope, items: array.items };
}
