// Averaging fixes into one vertex ("add vertex at my position", issue 31): a receiver's positions scatter around
// where it stands, and a surveyor holds still for some seconds or some fixes and takes their mean. The mean is taken
// in a local metric frame (local-frame.ts) and its spread is the RMS distance of the fixes from it, in metres: what
// the panel shows while averaging and what the vertex's survey record keeps as its accuracy.
import { frameAround } from './local-frame.ts';

export interface AveragedFix {
  lon: number; lat: number;
  /** Root-mean-square distance of the fixes from their mean, metres (0 for one fix). */
  spread: number;
  count: number;
}

export function averagePositions(points: readonly (readonly [number, number])[]): AveragedFix | null {
  if (!points.length) return null;
  const frame = frameAround(points);
  const xy = points.map((p) => frame.toXY(p));
  const mx = xy.reduce((s, p) => s + p[0], 0) / xy.length;
  const my = xy.reduce((s, p) => s + p[1], 0) / xy.length;
  const ss = xy.reduce((s, p) => s + (p[0] - mx) ** 2 + (p[1] - my) ** 2, 0);
  const [lon, lat] = frame.toLonLat([mx, my]);
  return { lon, lat, spread: Math.sqrt(ss / xy.length), count: xy.length };
}

/** How long to average: a number of fixes, or of seconds from the first fix taken. */
export type AverageGoal = { fixes: number } | { seconds: number };

/** Whether averaging `count` fixes, the first received at `firstMs`, is done at `nowMs`. */
export function averageDone(goal: AverageGoal, count: number, firstMs: number, nowMs: number): boolean {
  if (count === 0) return false;
  return 'fixes' in goal ? count >= goal.fixes : nowMs - firstMs >= goal.seconds * 1000;
}

/** The goal as the panel words it ("5 fixes", "10 s"); 1 fix is no averaging. */
export const goalWords = (goal: AverageGoal): string =>
  'fixes' in goal ? `${goal.fixes} ${goal.fixes === 1 ? 'fix' : 'fixes'}` : `${goal.seconds} s`;
