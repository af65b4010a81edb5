// A vertex taken from the position (issue 31), as plain data: the fixes averaged into one position and its survey
// record, whether its accuracy passes the user's threshold, and where it goes into a shape being modified (the edge
// it lengthens least). Kept apart from the components so that each rule is tested without a browser.
import type { Fix } from '../../../core/api.ts';
import { averagePositions } from '../../../core/gnss/average.ts';
import { frameAround } from '../../../core/gnss/local-frame.ts';
import type { SurveyVertex } from '../../../core/gnss/survey.ts';
import type { Position2 } from '../../store.ts';

export interface TakenVertex {
  pos: Position2;
  /** The vertex's survey record (core/gnss/survey.ts). */
  survey: SurveyVertex;
  /** RMS distance of the fixes averaged from their mean, metres (0 for one fix). */
  spread: number;
  count: number;
}

/**
 * The fixes averaged into one vertex. Its record takes the last fix's quality and time, the fewest satellites and
 * the worst HDOP seen, and as accuracy the larger of the fixes' mean accuracy and their spread: a spread wider than
 * the receiver claims says the claim was optimistic.
 */
export function takeVertex(fixes: readonly Fix[]): TakenVertex | null {
  const avg = averagePositions(fixes.map((f) => [f.lon, f.lat] as const));
  if (!avg) return null;
  const last = fixes[fixes.length - 1]!;
  const known = <T,>(xs: (T | null)[]) => xs.filter((x): x is T => x !== null);
  const sats = known(fixes.map((f) => f.satellites));
  const hdops = known(fixes.map((f) => f.hdop));
  const accs = known(fixes.map((f) => f.accuracy));
  const meanAcc = accs.length === fixes.length ? accs.reduce((a, b) => a + b, 0) / accs.length : null;
  const accuracy = meanAcc === null ? null : fixes.length > 1 ? Math.max(meanAcc, avg.spread) : meanAcc;
  // One fix is the receiver's position exactly (its [lon, lat] kept, not sent through the frame and back).
  const pos: Position2 = fixes.length === 1 ? [last.lon, last.lat] : [avg.lon, avg.lat];
  return {
    pos, spread: avg.spread, count: avg.count,
    survey: { lon: pos[0], lat: pos[1], quality: last.quality, satellites: sats.length ? Math.min(...sats) : null, hdop: hdops.length ? Math.max(...hdops) : null, accuracy, time: last.time },
  };
}

/** Why a vertex of this accuracy needs the user's word before it is added (null: it passes). `threshold` null: any. */
export function accuracyProblem(accuracy: number | null, threshold: number | null): string | null {
  if (threshold === null) return null;
  if (accuracy === null) return `The receiver does not say how accurate this position is (your threshold is ${threshold} m).`;
  return accuracy > threshold ? `This position is accurate to ±${+accuracy.toFixed(2)} m, worse than your threshold of ${threshold} m.` : null;
}

/**
 * The ring with `pos` inserted where it lengthens the outline least (between the two vertices whose edge it is
 * nearest, as a surveyor adds a corner between its neighbours).
 */
export function insertVertex(ring: readonly Position2[], pos: Position2): Position2[] {
  if (ring.length < 2) return [...ring, pos];
  const f = frameAround([...ring, pos]);
  const xy = ring.map((p) => f.toXY(p));
  const q = f.toXY(pos);
  const d = (a: readonly [number, number], b: readonly [number, number]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  let best = 0;
  let cost = Infinity;
  for (let i = 0; i < xy.length; i++) {
    const a = xy[i]!;
    const b = xy[(i + 1) % xy.length]!;
    const c = d(a, q) + d(q, b) - d(a, b);
    if (c < cost) { cost = c; best = i; }
  }
  return [...ring.slice(0, best + 1), pos, ...ring.slice(best + 1)];
}
