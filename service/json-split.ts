// Splits a large JSON request body into its envelope and the items of one top-level array (the parcels) without
// parsing it, so that each item can be parsed and validated as its own job on a worker thread, and no thread
// spends a whole 30 MB parse in one go. The split is exact or refused: JSON.parse of the envelope, with the
// array's items put back as JSON.parse of each item, is JSON.parse of the body whenever every piece parses; and
// the body is valid JSON only if every piece is (the separators in between are checked here). The scanning itself is
// core/json/scan.ts's, loose: it finds where each value ends and leaves checking it to JSON.parse of its piece.
import { BYTE, bytesAre, member, seen, skipSpace, skipValue, text } from '../core/json/scan.ts';

const { CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET } = BYTE;

export interface SplitBody {
  /** The body's text with the array emptied (`"parcels":[]`), to parse as the request's envelope. */
  envelope: string;
  /** Byte ranges [start, end) of the array's items, in order. */
  items: [number, number][];
}

/** The text of bytes [start, end), decoded as the whole body would have been (a byte-order mark kept as U+FEFF). */
export const decodeRange = text;

const wantedKeys = new Map<string, Uint8Array>();
/** The key's bytes with its quotes, as member() finds it (a key with an escape is refused before any comparison). */
function wantedKey(key: string): Uint8Array {
  let k = wantedKeys.get(key);
  if (!k) wantedKeys.set(key, (k = new TextEncoder().encode(JSON.stringify(key))));
  return k;
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
  const wanted = wantedKey(key);
  const end = b.length;
  let i: number;
  let expect: SplitProgress['expect'] = 'member';
  let open = -1;
  let close = -1;
  if (from === undefined) {
    i = skipSpace(b, 0, end);
    if (b[i] !== OPEN_BRACE) return { kind: 'refused' };
    i = skipSpace(b, i + 1, end);
    if (b[i] === CLOSE_BRACE) return { kind: 'refused' };
  } else {
    ({ i, expect, open, close } = from);
  }
  const start = i;
  const items: [number, number][] = [];
  for (;;) {
    if (expect === 'item') {
      if (items.length > 0 && i - start >= budget) return { kind: 'more', progress: { i, expect, open, close }, items };
      const itemStart = i;
      i = skipValue(b, i, end);
      if (i < 0) return { kind: 'refused' };
      items.push([itemStart, i]);
      i = skipSpace(b, i, end);
      if (b[i] === CLOSE_BRACKET) {
        close = i;
        i = skipSpace(b, i + 1, end);
        expect = 'after';
      } else if (b[i] === COMMA) {
        i = skipSpace(b, i + 1, end);
      } else {
        return { kind: 'refused' };
      }
    } else if (expect === 'member') {
      i = member(b, i, end);
      if (i < 0 || seen.escaped) return { kind: 'refused' };
      if (bytesAre(b, seen.keyStart, seen.keyEnd, wanted)) {
        if (open !== -1 || b[i] !== OPEN_BRACKET) return { kind: 'refused' };
        open = i;
        i = skipSpace(b, i + 1, end);
        if (b[i] === CLOSE_BRACKET) {
          close = i;
          i = skipSpace(b, i + 1, end);
          expect = 'after';
        } else {
          expect = 'item';
        }
      } else {
        i = skipValue(b, i, end);
        if (i < 0) return { kind: 'refused' };
        i = skipSpace(b, i, end);
        expect = 'after';
      }
    } else {
      if (b[i] === COMMA) {
        i = skipSpace(b, i + 1, end);
        expect = 'member';
        continue;
      }
      if (b[i] !== CLOSE_BRACE || open === -1 || skipSpace(b, i + 1, end) !== end) return { kind: 'refused' };
      const envelope = text(b, 0, open + 1) + text(b, close, end);
      return { kind: 'done', split: { envelope, items } };
    }
  }
}
