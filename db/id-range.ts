// A set of integer ids (rowids, op ids) that is one unbroken run lo…hi: what the push's statements read or write by
// `BETWEEN lo AND hi` instead of `IN (SELECT value FROM json_each(?))`. A push's batches are nearly always such runs
// (parcels created together have consecutive rowids, and their ops consecutive ids), and a range is one walk along
// the table's leaves, where the list was written as JSON, parsed back by SQLite and looked up one id at a time.

/** [lo, hi] when `ids` are exactly the integers lo…hi, each once, in increasing order; null otherwise. */
export function idRange(ids: readonly number[]): [number, number] | null {
  const n = ids.length;
  if (n === 0) return null;
  const lo = ids[0]!;
  if (!Number.isSafeInteger(lo)) return null;
  for (let i = 1; i < n; i++) if (ids[i] !== lo + i) return null;
  return [lo, lo + n - 1];
}

/** `column` is one of `ids`, as SQL and its parameters: a range for a run of ids (idRange), else the list as JSON. */
export function idsIn(column: string, ids: readonly number[]): { sql: string; params: unknown[] } {
  const range = idRange(ids);
  return range
    ? { sql: `${column} BETWEEN ? AND ?`, params: range }
    : { sql: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(ids)] };
}
