// An area's size before it is downloaded: a few of its real tiles fetched now (two at each of the lowest, middle and
// highest zooms, in the middle and at the corner of the largest box), their mean size at each zoom scaled by that
// zoom's tile count (a zoom between two sampled ones takes the nearer one's mean). A tile the server has none of
// counts as 0 bytes. One try each, a short wait: an estimate is not worth a long retry.
import { countAtZoom, tileRect, type LonLatBox, type TileCoord } from '../core/tiles/tile-math.ts';
import { TileFetcher, type TilePolicy } from './tile-fetcher.ts';
import type { TileAddress } from './tile-source.ts';

const SAMPLE_TIMEOUT_MS = 10_000;

export async function estimateBytes(
  boxes: readonly LonLatBox[], z0: number, z1: number, urlOf: TileAddress, policy: TilePolicy,
): Promise<{ bytesEstimate: number | null; sampled: number; sampleProblem: string | null }> {
  const zooms = [...new Set([z0, Math.round((z0 + z1) / 2), z1])];
  const largest = [...boxes].sort((a, b) => countAtZoom([b], z1) - countAtZoom([a], z1))[0]!;
  const samples: TileCoord[] = [];
  for (const z of zooms) {
    const r = tileRect(largest, z);
    const mid = { z, x: Math.floor((r.x0 + r.x1) / 2), y: Math.floor((r.y0 + r.y1) / 2) };
    samples.push(mid);
    if (r.x0 !== mid.x || r.y0 !== mid.y) samples.push({ z, x: r.x0, y: r.y0 });
  }
  const fetcher = new TileFetcher(AbortSignal.timeout(SAMPLE_TIMEOUT_MS * 2), { ...policy, attempts: 1, timeoutMs: Math.min(policy.timeoutMs, SAMPLE_TIMEOUT_MS) });
  const answers = await Promise.all(samples.map(async (t) => {
    const url = urlOf(t);
    if (url === null) return { t, size: 0 };
    const a = await fetcher.fetch(url).catch(() => ({ kind: 'failed' as const, why: 'no answer in time' }));
    return a.kind === 'failed' ? { t, why: a.why } : { t, size: a.kind === 'tile' ? a.data.length : 0 };
  })).finally(() => fetcher.close());
  const sized = answers.filter((a): a is { t: TileCoord; size: number } => 'size' in a);
  if (!sized.length) {
    const why = answers.find((a): a is { t: TileCoord; why: string } => 'why' in a)?.why ?? 'no tile';
    return { bytesEstimate: null, sampled: 0, sampleProblem: `No tile could be read to estimate the size: ${why}.` };
  }
  const mean = new Map<number, number>();
  for (const z of zooms) {
    const at = sized.filter((a) => a.t.z === z);
    if (at.length) mean.set(z, at.reduce((s, a) => s + a.size, 0) / at.length);
  }
  const known = [...mean.keys()];
  let bytes = 0;
  for (let z = z0; z <= z1; z++) {
    const nearest = known.reduce((best, k) => (Math.abs(k - z) < Math.abs(best - z) ? k : best), known[0]!);
    bytes += countAtZoom(boxes, z) * mean.get(nearest)!;
  }
  return { bytesEstimate: Math.round(bytes), sampled: sized.length, sampleProblem: null };
}
