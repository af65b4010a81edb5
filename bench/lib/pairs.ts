// Comparative benchmarks run both sides interleaved in pairs (A then B, then B then A, …, so neither side always
// goes first on a machine that warms up or slows down) and report the median of the per-pair ratios with its
// spread: never one side's best run against the other's.
import { median, r3 } from './stats.ts';

export interface PairStats {
  /** A ÷ B of each pair, in the order run. */
  ratios: number[];
  median: number;
  min: number;
  max: number;
}

export function pairStats(a: readonly number[], b: readonly number[]): PairStats {
  if (a.length !== b.length || a.length === 0) throw new Error(`pairStats: ${a.length} against ${b.length} runs`);
  const ratios = a.map((x, i) => r3(x / b[i]!));
  return { ratios, median: r3(median(ratios)), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/**
 * Runs `pairs` pairs of (a, b), alternating which goes first. `prepare` makes each pair's fixtures (untimed) and
 * the sides return their measured value (wall ms, say). `release` removes a pair's fixtures (services stopped,
 * files removed) once both sides ran, or failed, before the next pair is prepared: what one pair leaves must not
 * load the next.
 */
export async function interleaved<F, R extends { value: number }>(
  pairs: number, prepare: (pair: number) => Promise<F>, a: (f: F, pair: number) => Promise<R>, b: (f: F, pair: number) => Promise<R>,
  onRun?: (side: 'a' | 'b', pair: number, r: R) => void, release?: (f: F) => Promise<void> | void,
): Promise<{ a: R[]; b: R[]; stats: PairStats }> {
  const as: R[] = [];
  const bs: R[] = [];
  for (let i = 0; i < pairs; i++) {
    const f = await prepare(i);
    try {
      const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
      for (const side of order) {
        const r = side === 'a' ? await a(f, i) : await b(f, i);
        (side === 'a' ? as : bs).push(r);
        onRun?.(side, i, r);
      }
    } finally {
      await release?.(f);
    }
  }
  return { a: as, b: bs, stats: pairStats(as.map((r) => r.value), bs.map((r) => r.value)) };
}

/** "1.04× (median of 5 pairs; 0.98–1.11)". */
export const describePairs = (s: PairStats): string => `${s.median}× (median of ${s.ratios.length} pairs; ${s.min}–${s.max})`;
