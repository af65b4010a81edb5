// Latency summaries: nearest-rank percentiles over every sample (no histogram bucketing).

export interface LatencySummary {
  count: number;
  min_ms: number;
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return {
    count: s.length,
    min_ms: r3(s[0] ?? NaN),
    mean_ms: r3(mean),
    p50_ms: r3(percentile(s, 50)),
    p95_ms: r3(percentile(s, 95)),
    p99_ms: r3(percentile(s, 99)),
    max_ms: r3(s[s.length - 1] ?? NaN),
  };
}

export const r1 = (x: number): number => Math.round(x * 10) / 10;
export const r3 = (x: number): number => Math.round(x * 1000) / 1000;
/**
 * The median: the middle value, or the mean of the two middle values of an even count. The one definition every
 * benchmark uses (a pair ratio's median, a side's median run); percentile() is for latency distributions.
 */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
