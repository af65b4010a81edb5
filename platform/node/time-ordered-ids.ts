// Time-ordered ids (RFC 9562 version 7), for rows created in bulk: the mirror's parcels, and the service's parcel keys.
import { randomFillSync } from 'node:crypto';

// A random id (v4) lands anywhere in the index of a unique id: in the mirror, the primary key's and the outbox's
// (entity, local_id), whose per-chunk statement copied every page it touched to its statement journal first; in the
// service, its parcels' unique key, where a 50-parcel batch wrote ~45 index pages from all over the index into the
// WAL (the COMMIT's CPU went 1.17 -> 0.62 ms per batch with these, bench/service-bulk.ts's batches in process). In
// creation order, inserts append. 48 bits of milliseconds, then a 26-bit counter (in rand_a and the top of rand_b)
// that keeps ids made within one millisecond, or after the clock steps back, in order; 48 random bits.
let lastMs = 0;
let counter = 0;
const COUNTER_LIMIT = 2 ** 26;

const ID_LENGTH = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;

/**
 * n ids, in order. They are written as ASCII into one buffer, made one string, and handed out as slices of it (V8
 * keeps a slice of 13 characters or more as a reference into its parent, 32 bytes): an id put together from its parts
 * with a template was a tree of concatenations, 250 bytes of heap each.
 */
export function timeOrderedIds(n: number): string[] {
  const text = timeOrderedIdBytes(n).toString('latin1');
  const ids = new Array<string>(n);
  for (let i = 0; i < n; i++) ids[i] = text.slice(i * ID_LENGTH, (i + 1) * ID_LENGTH);
  return ids;
}

/** Id i of a timeOrderedIdBytes, as a string. */
export const idAt = (bytes: Buffer, i: number): string => bytes.toString('latin1', i * ID_LENGTH, (i + 1) * ID_LENGTH);

/**
 * n ids as ASCII, one after another (idAt reads them), outside the heap: for a caller that needs each id as a string
 * only for a moment. An import kept a chunk's 5,000 ids, as strings, through the chunk's writes; as slices of one
 * string, that string (180 KB) was allocated straight into the old generation, as any object over 128 KB is. Either
 * way they were garbage there, 2.5-2.9 MB of what the importing thread promoted importing 100,000 parcels (the
 * sampling heap profiler keeping what full collections freed).
 */
export function timeOrderedIdBytes(n: number): Buffer {
  const random = randomFillSync(Buffer.allocUnsafe(6 * n));
  const text = Buffer.allocUnsafe(ID_LENGTH * n);
  for (let i = 0; i < n; i++) {
    const now = Date.now();
    if (now > lastMs) {
      lastMs = now;
      counter = 0;
    } else if (++counter === COUNTER_LIMIT) {
      lastMs++; // borrow the next millisecond rather than wrap
      counter = 0;
    }
    let at = i * ID_LENGTH;
    // 48 bits of milliseconds as 8 hex digits, a dash and 4 more: the top 16 bits apart from the low 32 (an int each).
    hex(text, at + 4, lastMs >>> 0, 8);
    hex(text, at, Math.floor(lastMs / 2 ** 32), 4);
    text.copyWithin(at + 9, at + 8, at + 12);
    text[at + 8] = DASH;
    text[at + 13] = DASH;
    at += 14;
    at = hex(text, at, 0x7000 | (counter >>> 14), 4);
    text[at++] = DASH;
    at = hex(text, at, 0x8000 | (counter & 0x3fff), 4);
    text[at++] = DASH;
    for (let k = 6 * i; k < 6 * i + 6; k++) {
      text[at++] = HEX[random[k]! >>> 4]!;
      text[at++] = HEX[random[k]! & 15]!;
    }
  }
  return text;
}

/** `value`'s low `digits` hex digits (at most 8), written at `at`; returns where they end. */
function hex(out: Buffer, at: number, value: number, digits: number): number {
  for (let d = digits - 1; d >= 0; d--) out[at + d] = HEX[(value >>> (4 * (digits - 1 - d))) & 15]!;
  return at + digits;
}
