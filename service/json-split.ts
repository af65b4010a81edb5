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

/** Where a split stopped: the next byte, and what is expected there. */
export interface SplitProgress {
  i: number;
  /** A member's key, an item of the `key` array, or what follows a member (a comma or the closing brace). */
  expect: 'member' | 'item' | 'after';
  /** Positions of the `key` array's brackets, -1 until found. */
  open: number;
  close: number;
}

export type SplitStep =
  | { kind: 'done'; split: SplitBody }
  | { kind: 'more'; progress: SplitProgress; items: [number, number][] }
  | { kind: 'refused' };

/**
 * The split of a body that is an object holding `key` once, as an array, or null for anything else (another
 * shape, an escape in a top-level key that could spell `key`, `key` twice, a byte-order mark, a separator that
 * is not a comma): the caller then parses the body whole, which also gives the right error for invalid JSON.
 */
export function splitArrayMember(b: Uint8Array, key: string): SplitBody | null {
  const items: [number, number][] = [];
  let progress: SplitProgress | undefined;
  for (;;) {
    const step = splitStep(b, key, progress, Infinity);
    if (step.kind === 'refused') return null;
    if (step.kind === 'done') return { envelope: step.split.envelope, items: [...items, ...step.split.items] };
    items.push(...step.items);
    progress = step.progress;
  }
}

/**
 * splitArrayMember in steps: scans from `from` (the start when absent) until done, or until about `budget` bytes
 * of items were read, between two items; the items found so far in this step come back with where to go on.
 */
export function splitStep(b: Uint8Array, key: string, from: SplitProgress | undefined, budget: number): SplitStep {
  const wanted = new TextEncoder().encode(key);
  let i: number;
  let expect: SplitProgress['expect'] = 'member';
  let open = -1;
  let close = -1;
  if (from === undefined) {
    i = skipSpace(b, 0);
    if (b[i] !== OPEN_OBJECT) return { kind: 'refused' };
    i = skipSpace(b, i + 1);
    if (b[i] === CLOSE_OBJECT) return { kind: 'refused' };
  } else {
    ({ i, expect, open, close } = from);
  }
  const start = i;
  const items: [number, number][] = [];
  for (;;) {
    if (expect === 'item') {
      if (items.length > 0 && i - start >= budget) return { kind: 'more', progress: { i, expect, open, close }, items };
      const itemStart = i;
      i = skipValue(b, i);
      if (i === itemStart) return { kind: 'refused' };
      items.push([itemStart, i]);
      i = skipSpace(b, i);
      if (b[i] === CLOSE_ARRAY) {
        close = i;
        i = skipSpace(b, i + 1);
        expect = 'after';
      } else if (b[i] === COMMA) {
        i = skipSpace(b, i + 1);
      } else {
        return { kind: 'refused' };
      }
    } else if (expect === 'member') {
      if (b[i] !== QUOTE) return { kind: 'refused' };
      const keyStart = i;
      i = skipString(b, i);
      for (let k = keyStart + 1; k < i - 1; k++) if (b[k] === BACKSLASH) return { kind: 'refused' };
      const isKey = keyIs(b, keyStart, i, wanted);
      i = skipSpace(b, i);
      if (b[i] !== COLON) return { kind: 'refused' };
      i = skipSpace(b, i + 1);
      if (isKey) {
        if (open !== -1 || b[i] !== OPEN_ARRAY) return { kind: 'refused' };
        open = i;
        i = skipSpace(b, i + 1);
        if (b[i] === CLOSE_ARRAY) {
          close = i;
          i = skipSpace(b, i + 1);
          expect = 'after';
        } else {
          expect = 'item';
        }
      } else {
        const valueStart = i;
        i = skipValue(b, i);
        if (i === valueStart) return { kind: 'refused' };
        i = skipSpace(b, i);
        expect = 'after';
      }
    } else {
      if (b[i] === COMMA) {
        i = skipSpace(b, i + 1);
        expect = 'member';
        continue;
      }
      if (b[i] !== CLOSE_OBJECT || open === -1 || skipSpace(b, i + 1) !== b.length) return { kind: 'refused' };
      const envelope = decoder.decode(b.subarray(0, open + 1)) + decoder.decode(b.subarray(close));
      return { kind: 'done', split: { envelope, items } };
    }
  }
}
