// Shared by the merge property tests (merge.*.property.test.ts): the fast-check run settings, a strict canonical JSON
// to compare results by, and key reordering.
import type fc from 'fast-check';

const LONG = process.env.CI_LONG === '1';
// A fixed seed keeps the default run reproducible; FC_SEED replays a reported failure; the long run explores.
const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : LONG ? undefined : 20_251_121;
export const opts = (numRuns = 300): fc.Parameters<unknown> => ({ numRuns: LONG ? numRuns * 10 : numRuns, ...(SEED === undefined ? {} : { seed: SEED }) });

/**
 * Canonical JSON with sorted keys. Strict: a function, undefined or non-finite number anywhere is an error, so a
 * merge that smuggles a prototype member (Object.prototype.constructor, toString…) into its result cannot hide.
 */
export function canon(v: unknown): string {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not JSON: ${v}`);
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  throw new Error(`not JSON: ${typeof v}`);
}
export const same = (a: unknown, b: unknown) => canon(a) === canon(b);

/** The same value with every object's keys in another order (reversed), recursively. */
export function reorder<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reorder) as T;
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reorder((v as Record<string, unknown>)[k])])) as T;
  }
  return v;
}
