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

export function timeOrderedIds(n: number): string[] {
  const random = randomFillSync(Buffer.alloc(6 * n)).toString('hex');
  const ids: string[] = [];
  // The millisecond's two groups are printed once per millisecond, not once per id: 5,000 ids take one or a few.
  let printed = -1;
  let head = '';
  for (let i = 0; i < n; i++) {
    const now = Date.now();
    if (now > lastMs) {
      lastMs = now;
      counter = 0;
    } else if (++counter === COUNTER_LIMIT) {
      lastMs++; // borrow the next millisecond rather than wrap
      counter = 0;
    }
    if (lastMs !== printed) {
      const ms = lastMs.toString(16).padStart(12, '0');
      head = `${ms.slice(0, 8)}-${ms.slice(8)}-`;
      printed = lastMs;
    }
    const a = (0x7000 | (counter >>> 14)).toString(16);
    const b = (0x8000 | (counter & 0x3fff)).toString(16);
    ids.push(`${head}${a}-${b}-${random.slice(12 * i, 12 * i + 12)}`);
  }
  return ids;
}
